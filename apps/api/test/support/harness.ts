import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_SCOPES } from "@mcpsm/domain";
import { type ReadTx, Storage } from "@mcpsm/domain/storage";
import { DEFAULT_QUOTAS } from "@mcpsm/domain/use-cases";
import { Effect, Layer, ManagedRuntime, Option } from "effect";
import pino from "pino";
import { mintDevToken } from "../../src/auth/dev-auth.js";
import type { AppConfig, AuthConfig, McpOAuthSignInConfig } from "../../src/config/app-config.js";
import { DEFAULT_GIT_SYNC_CONFIG, type GitSyncConfig } from "../../src/config/git-sync-config.js";
import { DEFAULT_IMPORT_SETTINGS, type ImportSettings } from "../../src/config/import-config.js";
import { localConfig } from "../../src/config/local-config.js";
import { DEFAULT_SECURITY_SETTINGS, type SecuritySettings } from "../../src/config/security-config.js";
import { defaultMcpSettings, type McpSettings } from "@mcpsm/mcp-runtime";
import { startService } from "../../src/service.js";
import { assertConforms } from "./openapi-conformance.js";
import { leakedIn, plantFromRequest, plantFromResponse } from "./planted-secrets.js";
import { testStorage } from "./test-storage.js";

/** One HTTP answer, read completely. `body` is the parsed JSON (undefined when the body is empty or not JSON). */
export interface Res {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON freely
  readonly body: any;
}

export interface RequestOptions {
  /** A JSON value (serialised) or a raw string (sent as is). */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A client bound to one base URL and (optionally) one bearer token. */
export interface Client {
  readonly request: (method: string, path: string, options?: RequestOptions) => Promise<Res>;
  readonly get: (path: string, headers?: Record<string, string>) => Promise<Res>;
  readonly post: (path: string, body?: unknown, headers?: Record<string, string>) => Promise<Res>;
  readonly patch: (path: string, body?: unknown, headers?: Record<string, string>) => Promise<Res>;
  readonly delete: (path: string, headers?: Record<string, string>) => Promise<Res>;
  /**
   * Stores an upstream OAuth connection of this tenant to `providerId` directly (a consent needs a real
   * authorization server; the route tests only need a connection to list or delete). Tenant clients only.
   */
  readonly seedConnection?: (providerId: string) => Promise<string>;
  /** Stores a caller value of a variable (docs/api-rules.md §23) straight into the store; answers its principal. */
  readonly seedCallerValue?: (variableId: string) => Promise<string>;
}

/** A tenant of the running service with a token carrying every scope. */
export interface Tenant {
  readonly id: string;
  readonly token: string;
  readonly api: Client;
}

export interface TestService {
  readonly url: string;
  /** The Prometheus scrape URL, when started with `metrics`. */
  readonly metricsUrl: string | undefined;
  readonly dataDir: string;
  /** Every log line the service wrote, parsed. */
  readonly logs: Array<Record<string, unknown>>;
  /** A client for `token` (none: no Authorization header). */
  readonly client: (token?: string) => Client;
  /** A dev-auth access token for `tenant` with `scopes` (default: every scope). */
  readonly token: (tenant: string, scopes?: ReadonlyArray<string>) => Promise<string>;
  /** A new tenant (unique id) with an all-scopes token and its client. */
  readonly tenant: (label?: string) => Promise<Tenant>;
  /** Reads the store the service runs on, directly (to check what is kept at rest). */
  readonly inspect: <A>(work: (tx: ReadTx) => Effect.Effect<A, unknown>) => Promise<A>;
  /** Stores the tool calls the call log's writer holds (it stores them about every second on its own). */
  readonly flushCalls: () => Promise<void>;
  /** Deletes (and counts in the metrics) the expired approvals now (the service does so every minute). */
  readonly sweepApprovals: () => Promise<void>;
  /** The store the service runs on (its call log, for tests that write or prune calls directly). */
  readonly storage: typeof Storage.Service;
  readonly close: () => Promise<void>;
}

export interface StartOptions {
  readonly quotas?: Partial<AppConfig["quotas"]>;
  /** The claim naming the tenant (default `sub`). */
  readonly tenantClaim?: string;
  /**
   * Only for tests of a failing store: replaces the suite's storage (test-storage.ts). Every other test
   * runs on the suite's storage.
   */
  readonly brokenStorage?: Layer.Layer<Storage>;
  /** A store the test owns (to read its raw rows, or to keep it across services); default: the suite's. */
  readonly ownStorage?: Layer.Layer<Storage>;
  /**
   * Rate limits, CORS and HTTP limits. The suite runs with rate limiting off (every file sends many requests
   * from one address); the security tests turn it on with small budgets.
   */
  readonly security?: Partial<SecuritySettings>;
  /** Another way to check access tokens than dev-auth (tokens from `token()` are then not accepted). */
  readonly auth?: AuthConfig;
  /** The encryption key and the previous ones (default: a key generated into the data directory). */
  readonly encryptionKey?: Uint8Array;
  readonly encryptionKeysOld?: ReadonlyArray<Uint8Array>;
  /** MCP endpoint settings (e.g. the upstream network policy); default: the service's defaults. */
  readonly mcp?: Partial<McpSettings>;
  /** The git sync worker; off unless given (tests that push start a git server of their own). */
  readonly gitSync?: Partial<GitSyncConfig>;
  /** How descriptions are read (worker threads, deadline, memory, concurrency); default: the service's. */
  readonly imports?: Partial<ImportSettings>;
  /** Runs the Prometheus listener on a free port (`metricsUrl`); off by default. */
  readonly metrics?: boolean;
  /** Exports traces by OTLP/HTTP to this traces URL; off by default. */
  readonly tracesUrl?: string;
  /** MCP_OAUTH_SERVER (default: on in dev-auth mode) and MCP_OAUTH_SIGNIN_* (default: unset). */
  readonly mcpOAuthServer?: boolean;
  readonly mcpOAuthSignIn?: McpOAuthSignInConfig;
  /** The console's authorization code sign-in: the authorization server's base URL and the console's client. */
  readonly consoleSignIn?: { readonly authUrl: string; readonly clientId: string };
  /** CALL_LOG_CAPTURE_ARGUMENTS: the servers whose calls keep masked arguments (read on each call). */
  readonly captureArguments?: ReadonlyArray<string>;
}

const send = async (
  base: string,
  token: string | undefined,
  method: string,
  path: string,
  options: RequestOptions = {},
) => {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const route = path.split("?")[0] ?? path;
  plantFromRequest(method, route, token, options.body);
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["content-type"] = "application/json";
  }
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...options.headers },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  // Every answer must be one the OpenAPI document describes (see openapi-conformance.ts).
  assertConforms(method, `${base}${path}`, { status: response.status, headers: response.headers, text });
  // No answer may repeat a secret the suite planted earlier (planted-secrets.ts).
  const headerText = [...response.headers].map(([name, value]) => `${name}: ${value}`).join("\n");
  const leaked = leakedIn(`${headerText}\n${text}`);
  if (leaked.length > 0)
    throw new Error(`${method} ${route} answered ${response.status} with a planted ${leaked.join(", ")}`);
  plantFromResponse(method, route, response.status, parsed);
  return { status: response.status, headers: response.headers, text, body: parsed } satisfies Res;
};

export const clientFor = (base: string, token?: string): Client => {
  const request = (method: string, path: string, options?: RequestOptions) => send(base, token, method, path, options);
  return {
    request,
    get: (path, headers) => request("GET", path, headers ? { headers } : {}),
    post: (path, body, headers) => request("POST", path, { body, ...(headers ? { headers } : {}) }),
    patch: (path, body, headers) => request("PATCH", path, { body, ...(headers ? { headers } : {}) }),
    delete: (path, headers) => request("DELETE", path, headers ? { headers } : {}),
  };
};

/**
 * Starts the real service on 127.0.0.1, port 0, in dev-auth mode with a fresh data directory and the
 * suite's storage (see test-storage.ts), logging into an array.
 */
export const startTestService = async (options: StartOptions = {}): Promise<TestService> => {
  const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-api-test-"));
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  // The store is built here (not inside the service) so the tests can also look at it directly.
  const storeRuntime = ManagedRuntime.make(options.brokenStorage ?? options.ownStorage ?? testStorage());
  const storage = await storeRuntime.runPromise(Storage);
  const config = localConfig(dataDir, {
    auth: options.auth ?? { mode: "dev", tenantClaim: options.tenantClaim ?? "sub" },
    ...(options.encryptionKey === undefined ? {} : { encryptionKey: Option.some(options.encryptionKey) }),
    encryptionKeysOld: options.encryptionKeysOld ?? [],
    ...(options.mcpOAuthServer === undefined ? {} : { mcpOAuthServer: Option.some(options.mcpOAuthServer) }),
    ...(options.mcpOAuthSignIn === undefined ? {} : { mcpOAuthSignIn: Option.some(options.mcpOAuthSignIn) }),
    quotas: { ...DEFAULT_QUOTAS, ...options.quotas },
    ...(options.consoleSignIn === undefined
      ? {}
      : { authUrl: options.consoleSignIn.authUrl, consoleClientId: options.consoleSignIn.clientId }),
    ...(options.mcp === undefined ? {} : { mcp: defaultMcpSettings(options.mcp) }),
    operations: {
      metricsPort: options.metrics === true ? 0 : undefined,
      auditRetentionDays: 90,
      tracesUrl: options.tracesUrl,
      ...(options.captureArguments === undefined ? {} : { callLogCaptureArguments: options.captureArguments }),
    },
    security: {
      ...DEFAULT_SECURITY_SETTINGS,
      rateLimit: { ...DEFAULT_SECURITY_SETTINGS.rateLimit, enabled: false },
      ...options.security,
    },
    gitSync: { ...DEFAULT_GIT_SYNC_CONFIG, enabled: options.gitSync !== undefined, ...options.gitSync },
    imports: { ...DEFAULT_IMPORT_SETTINGS, ...options.imports },
  });
  const service = await startService(config, { storage: Layer.succeed(Storage, storage), logger });
  // Every tenant the test acts as, so close() can search their audit trails for planted secrets.
  const tenants = new Set<string>();
  const token = (tenant: string, scopes: ReadonlyArray<string> = ALL_SCOPES) => {
    tenants.add(tenant);
    return mintDevToken(dataDir, { subject: tenant, scopes });
  };
  return {
    url: service.url,
    metricsUrl: service.metricsUrl,
    dataDir,
    logs,
    client: (t?: string) => clientFor(service.url, t),
    token,
    tenant: async (label = "tenant") => {
      const id = `${label}-${randomUUID()}`;
      const t = await token(id);
      const seedConnection = async (providerId: string) => {
        const at = new Date();
        const row = {
          id: randomUUID().replaceAll("-", "").slice(0, 11),
          tenant: id,
          providerId,
          principal: `oauth:seeded-${randomUUID()}`,
          serverTokenId: null,
          scopes: ["seeded"],
          tokensCipher: "v1.seeded.not-a-real-ciphertext",
          refreshable: false,
          expiresAt: new Date(at.getTime() + 3600_000),
          createdAt: at,
          updatedAt: at,
        };
        await storeRuntime.runPromise(storage.transaction((tx) => tx.putUpstreamConnection(row)));
        return row.id;
      };
      const seedCallerValue = async (variableId: string) => {
        const at = new Date();
        const principal = `oauth:seeded-${randomUUID()}`;
        const row = {
          id: randomUUID().replaceAll("-", "").slice(0, 11),
          tenant: id,
          variableId,
          principal,
          serverTokenId: null,
          valueCipher: "v1.seeded.not-a-real-ciphertext",
          createdAt: at,
          updatedAt: at,
        };
        await storeRuntime.runPromise(storage.transaction((tx) => tx.putCallerValue(row)));
        return principal;
      };
      return { id, token: t, api: { ...clientFor(service.url, t), seedConnection, seedCallerValue } };
    },
    inspect: (work) => storeRuntime.runPromise(storage.read(work)),
    flushCalls: () => service.callLog.flush(),
    sweepApprovals: () => service.sweepApprovals(),
    storage,
    close: async () => {
      // No audit event and no metric may hold a secret the suite planted (names of fields, never values).
      const trails =
        options.brokenStorage === undefined
          ? await storeRuntime.runPromise(
              storage.read((tx) =>
                Effect.forEach([...tenants], (tenant) =>
                  tx.searchAuditEvents({ tenant, limit: Number.MAX_SAFE_INTEGER }),
                ),
              ),
            )
          : [];
      const metricsText = service.metricsUrl === undefined ? "" : await (await fetch(service.metricsUrl)).text();
      await service.close();
      await storeRuntime.dispose();
      await rm(dataDir, { recursive: true, force: true });
      // No log line may hold a secret the suite planted.
      const leaked = leakedIn(JSON.stringify(logs));
      if (leaked.length > 0) throw new Error(`the service logged a planted ${leaked.join(", ")}`);
      const inTrail = leakedIn(JSON.stringify(trails));
      if (inTrail.length > 0) throw new Error(`an audit event holds a planted ${inTrail.join(", ")}`);
      const inMetrics = leakedIn(metricsText);
      if (inMetrics.length > 0) throw new Error(`the metrics hold a planted ${inMetrics.join(", ")}`);
    },
  };
};
