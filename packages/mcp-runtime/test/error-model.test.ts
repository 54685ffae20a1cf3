import { randomBytes } from "node:crypto";
import { Unavailable } from "@mcpsm/domain/errors";
import type { Storage } from "@mcpsm/domain/storage";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpLogger } from "../src/index.js";
import { buildFixture } from "./support/fixture.js";
import { makeServices, type RunningMcp, type Services, startMcp } from "./support/harness.js";
import { postJson } from "./support/raw-exchange.js";
import { startUpstream, type Upstream } from "./support/upstream.js";

// One error model at the MCP edge: an outage is 503 with Retry-After (or JSON-RPC -32000 inside an exchange)
// and a warning; a defect is a logged internal error, never disguised as an outage; a configuration fault (a
// secret under a key the service was not given) is logged loudly and answered as such.

/** How the store behaves: normally, away (Unavailable), broken (a bug: dies), or away for variable reads only. */
type StoreMode = "up" | "down" | "bug" | "variables-down";

const outage = () => new Unavailable({ detail: "the database is unavailable (test outage)" });

/** A memory store that can be made to fail on demand. */
const switchableStore = (base: typeof Storage.Service) => {
  const state = { mode: "up" as StoreMode };
  const failing = <A, E, R>(go: Effect.Effect<A, E, R>): Effect.Effect<A, E | Unavailable, R> =>
    Effect.suspend(
      (): Effect.Effect<A, E | Unavailable, R> =>
        state.mode === "down"
          ? Effect.fail(outage())
          : state.mode === "bug"
            ? Effect.die(new Error("boom: a bug in the store adapter"))
            : go,
    );
  // In "variables-down", only the variable lookup of tools/call fails: every read before it works.
  const wrapTx = <T extends object>(tx: T): T =>
    new Proxy(tx, {
      get: (target, name, receiver) =>
        name === "findVariablesByName" && state.mode === "variables-down"
          ? () => Effect.fail(outage())
          : Reflect.get(target, name, receiver),
    });
  const store: typeof Storage.Service = {
    read: (work) => failing(base.read((tx) => work(wrapTx(tx)))),
    transaction: (work) => failing(base.transaction((tx) => work(wrapTx(tx)))),
    calls: base.calls,
  };
  return { store, state };
};

/** A logger that keeps its lines. */
const recordingLogger = () => {
  const lines: Array<{ level: "warn" | "error"; message: string; fields: Record<string, unknown> }> = [];
  const logger: McpLogger = {
    warn: (fields, message) => lines.push({ level: "warn", message, fields: fields as Record<string, unknown> }),
    error: (fields, message) => lines.push({ level: "error", message, fields: fields as Record<string, unknown> }),
  };
  return { logger, lines };
};

/** A raw JSON POST under a server token. */
const post = (url: string, token: string, body: unknown) => postJson(url, { Authorization: `Bearer ${token}` }, body);

/** The JSON-RPC message of a response body, plain JSON or a one-event SSE stream. */
const rpcBody = (text: string) => {
  const data = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "");
  return JSON.parse(data) as { error?: { code: number; message: string; data?: unknown }; result?: unknown };
};

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const CALL_GET_ITEM = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "getItem", arguments: { pathArgs: { itemId: "1" } } },
};

const key = new Uint8Array(randomBytes(32));
const switchable = switchableStore(makeMemoryStorage());
let management: Services;
let upstream: Upstream;
let fixture: Awaited<ReturnType<typeof buildFixture>>;
let served: { mcp: RunningMcp; services: Services; lines: ReturnType<typeof recordingLogger>["lines"] };
let misconfigured: { mcp: RunningMcp; services: Services; lines: ReturnType<typeof recordingLogger>["lines"] };

/** An MCP runtime over the switchable store, under `cipherKey`, logging into its own lines. */
const startOver = async (cipherKey: Uint8Array) => {
  const services = makeServices(switchable.store, cipherKey);
  const { logger, lines } = recordingLogger();
  const mcp = await startMcp(
    services,
    { upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 2000 },
    {
      logger,
      // `good-<tenant>`: an OAuth token checked without the store, so the store's outage is met afterwards.
      oauth: { verify: async (token) => ({ tenant: token.slice(5), scopes: [] }) },
    },
  );
  return { mcp, services, lines };
};

beforeAll(async () => {
  management = makeServices(switchable.store, key);
  upstream = await startUpstream();
  fixture = await buildFixture(management, upstream);
  served = await startOver(key);
  // The same store under another key: the SECRET variables were encrypted under a key it was not given.
  misconfigured = await startOver(new Uint8Array(randomBytes(32)));
});

afterAll(async () => {
  switchable.state.mode = "up";
  await served?.mcp.close();
  await misconfigured?.mcp.close();
  await served?.services.dispose();
  await misconfigured?.services.dispose();
  await management?.dispose();
  await upstream?.close();
});

const endpoint = (running: RunningMcp) => `${running.url}/mcp/${fixture.server.id}`;

describe("an outage", () => {
  it("answers 503 with Retry-After and the JSON-RPC error -32000, logs a warning, and recovers", async () => {
    const before = served.lines.length;
    switchable.state.mode = "down";
    try {
      // Checking a server token needs the store; so does loading the server after an OAuth token.
      for (const token of [fixture.token.value, "good-acme"]) {
        const answer = await post(endpoint(served.mcp), token, INITIALIZE);
        expect(answer.status, token).toBe(503);
        expect(answer.headers["retry-after"]).toBe("1");
        expect(rpcBody(answer.body)).toEqual({
          jsonrpc: "2.0",
          error: { code: -32000, message: "the database is unavailable (test outage); retry later" },
          id: null,
        });
      }
    } finally {
      switchable.state.mode = "up";
    }
    const logged = served.lines.slice(before);
    expect(logged).toHaveLength(2);
    expect(logged.every((line) => line.level === "warn" && line.fields.detail === outage().detail)).toBe(true);
    expect((await post(endpoint(served.mcp), fixture.token.value, INITIALIZE)).status).toBe(200);
  });

  it("inside a tools/call, answers JSON-RPC -32000 with retryAfterSeconds, not a tool result", async () => {
    const before = served.lines.length;
    switchable.state.mode = "variables-down";
    try {
      const answer = await post(endpoint(served.mcp), fixture.token.value, CALL_GET_ITEM);
      expect(answer.status).toBe(200);
      expect(rpcBody(answer.body).error).toEqual({
        code: -32000,
        message: "the database is unavailable (test outage); retry later",
        data: { retryAfterSeconds: 1 },
      });
    } finally {
      switchable.state.mode = "up";
    }
    expect(served.lines.slice(before)).toMatchObject([{ level: "warn", fields: { method: "tools/call" } }]);
  });
});

describe("a defect", () => {
  it("answers 500 with JSON-RPC -32603 'internal error' (never 503), and logs the cause", async () => {
    const before = served.lines.length;
    switchable.state.mode = "bug";
    try {
      const answer = await post(endpoint(served.mcp), fixture.token.value, INITIALIZE);
      expect(answer.status).toBe(500);
      expect(answer.headers["retry-after"]).toBeUndefined();
      expect(rpcBody(answer.body)).toEqual({
        jsonrpc: "2.0",
        error: { code: -32603, message: "internal error" },
        id: null,
      });
      expect(answer.body).not.toContain("boom");
    } finally {
      switchable.state.mode = "up";
    }
    const logged = served.lines.slice(before);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.level).toBe("error");
    expect(String(logged[0]?.fields.cause)).toContain("boom: a bug in the store adapter");
  });
});

describe("a configuration fault", () => {
  it("answers a tools/call needing a secret under an unknown key with -32603 naming the fault, and logs an error", async () => {
    const before = misconfigured.lines.length;
    const seen = upstream.seen.length;
    const answer = await post(endpoint(misconfigured.mcp), fixture.token.value, CALL_GET_ITEM);
    expect(answer.status).toBe(200);
    const error = rpcBody(answer.body).error;
    expect(error?.code).toBe(-32603);
    expect(error?.message).toMatch(
      /^configuration fault: the SECRET variable 'LOCALHOST_TOKEN' is encrypted under a key/,
    );
    expect(error?.message).not.toMatch(/retry|unavailable/i);
    expect(upstream.seen.length).toBe(seen);
    const logged = misconfigured.lines.slice(before);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: "error", fields: { fault: "configuration", method: "tools/call" } });
    expect(logged[0]?.message).toMatch(/CONFIGURATION FAULT/);
    // Tools that need no secret still work under the same configuration.
    const plain = await post(endpoint(misconfigured.mcp), fixture.token.value, {
      ...CALL_GET_ITEM,
      params: { name: "createItem", arguments: { bodyArgs: { name: "x" } } },
    });
    expect(rpcBody(plain.body).error).toBeUndefined();
  });
});
