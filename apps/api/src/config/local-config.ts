import { DEFAULT_QUOTAS } from "@mcpsm/domain/use-cases";
import { Option } from "effect";
import type { AppConfig } from "./app-config.js";

/**
 * The configuration of a throwaway in-process instance: a free port on 127.0.0.1, dev-auth, an encryption
 * key generated into `dataDir`, the default quotas and no logs. Tests and benchmarks start the service with
 * it and override what they are about.
 */
export const localConfig = (dataDir: string, overrides: Partial<AppConfig> = {}): AppConfig => ({
  port: 0,
  host: "127.0.0.1",
  dataDir,
  logLevel: "silent",
  auth: { mode: "dev", tenantClaim: "sub" },
  encryptionKey: Option.none(),
  quotas: DEFAULT_QUOTAS,
  ...overrides,
});
