import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe } from "vitest";
import type { McpRuntimeOptions, McpSettings } from "../../src/index.js";
import {
  connect,
  ERAS,
  type Era,
  makeServices,
  type manage,
  type RunningMcp,
  type Services,
  startMcp,
} from "./harness.js";
import { buildFixture } from "./fixture.js";
import { startUpstream, type Upstream } from "./upstream.js";

/** What one test file serves: the domain services, a local upstream and the MCP runtime over them. */
export interface McpSuite<U> {
  readonly services: Services;
  readonly upstream: U;
  readonly mcp: RunningMcp;
}

/**
 * Starts an McpSuite before the file's tests (the runtime with `settings` and `extra`) and closes it after them.
 * Its fields are read in hooks and tests, which run once it is started (hooks run in the order they are declared).
 */
export const useMcpSuite = <U extends { readonly close: () => Promise<void> }>(
  startUpstream: () => Promise<U>,
  settings: Partial<McpSettings>,
  extra: Partial<McpRuntimeOptions> = {},
): McpSuite<U> => {
  const suite = {} as { services: Services; upstream: U; mcp: RunningMcp };
  beforeAll(async () => {
    suite.services = makeServices();
    suite.upstream = await startUpstream();
    suite.mcp = await startMcp(suite.services, settings, extra);
  });
  afterAll(async () => {
    await suite.mcp?.close();
    await suite.upstream?.close();
    await suite.services?.dispose();
  });
  return suite;
};

/** An McpSuite over the standard upstream (`upstream.ts`), with the standard fixture (`fixture.ts`) on it. */
export interface FixtureSuite extends McpSuite<Upstream> {
  readonly fixture: Awaited<ReturnType<typeof buildFixture>>;
}

/** Starts a FixtureSuite before the file's tests (as `useMcpSuite`, then builds the fixture) and closes it after. */
export const useFixtureSuite = (settings: Partial<McpSettings>, extra: Partial<McpRuntimeOptions> = {}) => {
  const suite: { fixture?: FixtureSuite["fixture"] } & McpSuite<Upstream> = useMcpSuite(startUpstream, settings, extra);
  beforeAll(async () => {
    suite.fixture = await buildFixture(suite.services, suite.upstream);
  });
  // The fixture is there once the hooks ran, before any test reads it.
  return suite as FixtureSuite;
};

/** Where an MCP client connects: the runtime's URL, a server on it and a token for that server. */
export interface Served {
  readonly url: string;
  readonly serverId: string;
  readonly token: string;
}

/**
 * Declares `body` once per protocol era, as `describe("protocol <era>")`, its tests sharing one SDK client
 * connected to `served()` before them and closed after them.
 */
export const describeEachEra = (served: () => Served, body: (client: () => Client, era: Era) => void) =>
  describe.each(ERAS)("protocol %s", (era) => {
    let client: Client | undefined;
    beforeAll(async () => {
      const { url, serverId, token } = served();
      client = await connect(url, serverId, era, token);
    });
    afterAll(async () => {
      await client?.close();
    });
    body(() => {
      if (client === undefined) throw new Error("the era's client is used before it connected");
      return client;
    }, era);
  });

/** Creates a server from its wire `body` and a token for it: what a client needs, past the runtime's URL. */
export const serveWithToken = async (m: ReturnType<typeof manage>, body: Record<string, unknown>) => {
  const server = await m.server(body);
  return { serverId: server.id, token: (await m.token(server.id)).value };
};
