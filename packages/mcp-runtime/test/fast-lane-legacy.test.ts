import { beforeAll, describe, expect, it } from "vitest";
import { ref } from "./support/fixture.js";
import { HOST_FRAME, postToBoth, useLanePair } from "./support/lane-pair.js";

// The fast lane for 2025-11-25, the era Claude Desktop, Claude Code, Cursor and VS Code speak: its tools/list
// and tools/call answers are one SSE event. Every request below goes to a runtime with the lane and to one
// without it (same store, same upstream); the raw answers (status, header lines, body) must be equal.

// Handed the headers of a host's request frame, as the service hands them (the lane merges them into its
// one writeHead; the SDK path has them set first).
const pair = useLanePair(HOST_FRAME);
let guarded: { server: { id: string }; token: { value: string } };

beforeAll(async () => {
  const { m, provider } = pair.fixture;
  // A per-caller value nobody entered yet, and a server whose destructive calls wait for an approval.
  await m.variable("LOCALHOST_CALLER_KEY", "shared-default", "SECRET", true);
  const perCaller = await m.tool(provider.id, {
    name: "perCaller",
    method: "GET",
    path: "/echo/mine",
    headers: [{ key: "X-Key", value: ref("LOCALHOST_CALLER_KEY") }],
  });
  await m.addTool(pair.fixture.server.id, provider.id, perCaller.id);
  const server = await m.server({ name: "Guarded", approvalPolicy: "DESTRUCTIVE", providers: [{ id: provider.id }] });
  guarded = { server, token: await m.token(server.id) };
});

interface Exchange {
  readonly message: Record<string, unknown>;
  readonly headers?: Record<string, string | undefined>;
  readonly server?: { id: string };
  readonly token?: string;
}

/** Sends `exchange` to both runtimes as a 2025-11-25 client does; both answers and whether the lane answered. */
const both = async (exchange: Exchange) => {
  const headers: Record<string, string | undefined> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
    Authorization: `Bearer ${exchange.token ?? pair.fixture.token.value}`,
    ...exchange.headers,
  };
  const body = JSON.stringify({ jsonrpc: "2.0", ...exchange.message });
  const path = `/mcp/${(exchange.server ?? pair.fixture.server).id}`;
  const { fromFast, fromSlow, laned } = await postToBoth(pair, path, headers, body);
  // An elicitation's id is new in every answer.
  const unique = (raw: typeof fromSlow) => ({ ...raw, body: raw.body.replaceAll(UUID, "<uuid>") });
  return { fromFast: unique(fromFast), fromSlow: unique(fromSlow), laned };
};

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

const call = (name: string, args?: Record<string, unknown>, id: string | number = 7): Exchange => ({
  message: { id, method: "tools/call", params: { name, ...(args ? { arguments: args } : {}) } },
});

describe("the 2025-11-25 fast lane answers exactly what the SDK path answers", () => {
  it("tools/list, with and without params", async () => {
    for (const message of [
      { id: 1, method: "tools/list", params: {} },
      { id: "two", method: "tools/list" },
      { id: 3, method: "tools/list", params: { _meta: { client: "x" } } },
    ]) {
      const { fromFast, fromSlow, laned } = await both({ message });
      expect(fromFast).toEqual(fromSlow);
      expect(fromFast.body.startsWith("event: message\ndata: ")).toBe(true);
      expect(laned).toBe(true);
    }
  });

  it("tools/call: results, tool errors, invalid arguments, upstream failures, a timeout", async () => {
    for (const exchange of [
      call("getItem", { pathArgs: { itemId: "42" }, queryArgs: { tag: ["a", "b"], limit: 2 } }),
      call("createItem", { body: { name: "box", size: 3 } }, "id-1"),
      call("deleteItem", { pathArgs: { itemId: "x y" } }),
      call("failing", { pathArgs: { code: 503 } }),
      call("failing", { pathArgs: { code: 404 } }),
      call("getItem", { pathArgs: {} }),
      call("getItem", { pathArgs: { itemId: 5 } }),
      call("createItem"),
      call("missingVar"),
      // A per-caller value: a server token is no person, so the shared default is used (no elicitation).
      call("perCaller"),
      call("big", { pathArgs: { size: 9000 } }),
      call("image"),
      call("array"),
      call("redirOther"),
      call("slow"),
      { message: { id: 8, method: "tools/call", params: { name: "array", _meta: { client: "x" } } } },
    ]) {
      const { fromFast, fromSlow, laned } = await both(exchange);
      expect(fromFast, JSON.stringify(exchange.message)).toEqual(fromSlow);
      expect(fromFast.headers).toContain("content-type: text/event-stream");
      expect(laned).toBe(true);
    }
  });

  it("leaves the rest to the SDK path, with the same answers", async () => {
    const cases: Exchange[] = [
      call("noSuchTool"),
      // An approval to ask for: only the SDK path elicits.
      { ...call("deleteItem", { pathArgs: { itemId: "1" } }), server: guarded.server, token: guarded.token.value },
      // Progress asked for: notifications only the SDK path sends.
      { message: { id: 9, method: "tools/call", params: { name: "array", _meta: { progressToken: 1 } } } },
      // A JSON-only or SSE-only Accept: the stateless 2025 transport refuses it (406).
      { ...call("array"), headers: { Accept: "application/json" } },
      { ...call("array"), headers: { Accept: "text/event-stream" } },
      { ...call("array"), headers: { "Mcp-Method": "tools/call" } },
      { message: { id: 10, method: "tools/call", params: { name: "array", _meta: 5 } } },
      { message: { id: 11, method: "tools/call", params: { name: "array", task: {} } } },
      { message: { id: 12, method: "initialize", params: {} } },
      { ...call("array"), token: "mcps_not-a-real-token" },
    ];
    for (const exchange of cases) {
      const { fromFast, fromSlow, laned } = await both(exchange);
      expect(fromFast, JSON.stringify(exchange)).toEqual(fromSlow);
      expect(laned, JSON.stringify(exchange)).toBe(false);
    }
  });

  it("answers a tenant over its limit as the SDK path does", async () => {
    pair.rateLimit.refused.add("acme");
    try {
      const { fromFast, fromSlow } = await both(call("array"));
      expect(fromFast).toEqual(fromSlow);
      expect(fromFast.status).toBe(429);
    } finally {
      pair.rateLimit.refused.delete("acme");
    }
  });
});
