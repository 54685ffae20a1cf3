import { afterAll, beforeAll } from "vitest";
import { type StartOptions, startTestService, type Tenant, type TestService } from "./harness.js";

/** The service of one test file and its tenants by name; filled before the file's tests run. */
export type FileService<Names extends string> = { readonly svc: TestService } & { readonly [N in Names]: Tenant };

/**
 * The set-up most API test files share: one service started before the file's tests (with `options`), one
 * tenant per entry of `tenants` (its name in the file → the label its id starts with), the service closed
 * after the tests. Read the fields inside hooks and tests only: they are empty while the file is collected.
 */
export const serviceForFile = <const Names extends string>(
  tenants: Readonly<Record<Names, string>>,
  options: StartOptions = {},
): FileService<Names> => {
  const world: { svc?: TestService; [name: string]: TestService | Tenant | undefined } = {};
  beforeAll(async () => {
    const svc = await startTestService(options);
    world.svc = svc;
    for (const [name, label] of Object.entries<string>(tenants)) world[name] = await svc.tenant(label);
  });
  afterAll(() => world.svc?.close());
  return world as FileService<Names>;
};
