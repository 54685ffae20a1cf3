import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantRateDecision } from "../src/index.js";
import { buildFixture } from "./support/fixture.js";
import { send } from "./support/raw-exchange.js";
import { makeServices, type RunningMcp, type Services, startMcp } from "./support/harness.js";
import { startUpstream, type Upstream } from "./support/upstream.js";

// The fast lane answers the common 2026-07-28 tools/list and tools/call POSTs without the SDK's per-exchange
// machinery. Whatever it answers must be byte for byte what the SDK path answers: every request below is sent
// to a runtime with the lane and to one without it (same store, same upstream), and the two answers compared.

let services: Services;
let upstream: Upstream;
let fast: RunningMcp;
let slow: RunningMcp;
let fixture: Awaited<ReturnType<typeof buildFixture>>;
/** Tenants over their limit (the rate limit answers the same way on both runtimes). */
const refused = new Set<string>();

/** Set: the rate limiter fails (its store is down), which the runtime answers as an internal error. */
let limiterDown = false;

const rateLimit = async (tenant: string): Promise<TenantRateDecision> => {
  if (limiterDown) throw new Error("the rate limiter's store is down");
  return {
    allowed: !refused.has(tenant),
    retryAfterSeconds: 7,
    headers: {
      "RateLimit-Limit": "100",
      "RateLimit-Remaining": refused.has(tenant) ? "0" : "99",
      "RateLimit-Reset": "7",
    },
  };
};

beforeAll(async () => {
  services = makeServices();
  upstream = await startUpstream();
  const settings = { upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 400, upstreamMaxResponseBytes: 4096 };
  fast = await startMcp(services, settings, { tenantRateLimit: rateLimit });
  slow = await startMcp(services, settings, { tenantRateLimit: rateLimit, fastLane: false });
  fixture = await buildFixture(services, upstream);
});

afterAll(async () => {
  await fast?.close();
  await slow?.close();
  await upstream?.close();
  await services?.dispose();
});

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface Exchange {
  readonly path?: string;
  readonly headers?: Record<string, string | undefined>;
  readonly message: Record<string, unknown>;
  readonly token?: string | undefined;
}

/** Sends `exchange` to both runtimes; returns both answers and whether the lane answered it. */
const both = async (exchange: Exchange) => {
  const method = String(exchange.message.method);
  const params = exchange.message.params as { name?: unknown } | undefined;
  const headers: Record<string, string | undefined> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": method,
    ...(method === "tools/call" && typeof params?.name === "string" ? { "Mcp-Name": params.name } : {}),
    Authorization: `Bearer ${exchange.token ?? fixture.token.value}`,
    ...exchange.headers,
  };
  const defined = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  const body = JSON.stringify({ jsonrpc: "2.0", ...exchange.message });
  const path = exchange.path ?? `/mcp/${fixture.server.id}`;
  const before = fast.runtime.fastLaneAnswers();
  // Answers name the runtime's own URL (metadata links): each is read as if it were the other's.
  const answered = await send(fast.url, path, defined, body);
  const fromFast = {
    ...answered,
    headers: answered.headers.map((line) => line.replaceAll(fast.url, slow.url)),
    body: answered.body.replaceAll(fast.url, slow.url),
  };
  const laned = fast.runtime.fastLaneAnswers() > before;
  const fromSlow = await send(slow.url, path, defined, body);
  return { fromFast, fromSlow, laned };
};

const call = (name: string, args?: Record<string, unknown>, id: string | number = 7) => ({
  message: { id, method: "tools/call", params: { name, ...(args ? { arguments: args } : {}), _meta: META } },
});

describe("the fast lane answers exactly what the SDK path answers", () => {
  it("tools/list, the first time (learnt from the SDK) and again (from the kept answer)", async () => {
    for (const id of [1, 2, "three"]) {
      const { fromFast, fromSlow, laned } = await both({
        message: { id, method: "tools/list", params: { _meta: META } },
      });
      expect(fromFast).toEqual(fromSlow);
      expect(fromFast.status).toBe(200);
      expect(JSON.parse(fromFast.body).result.tools.length).toBeGreaterThan(5);
      expect(laned).toBe(true);
    }
  });

  it("tools/call results: JSON, text, arrays, images, upstream errors, bad arguments, missing variables", async () => {
    const cases = [
      call("getItem", { pathArgs: { itemId: "42" }, queryArgs: { tag: ["a", "b"], limit: 2 } }),
      call("createItem", { body: { name: "box", size: 3 } }),
      call("deleteItem", { pathArgs: { itemId: "x y" } }, "id-1"),
      call("failing", { pathArgs: { code: 503 } }),
      call("failing", { pathArgs: { code: 404 } }),
      call("getItem", { pathArgs: {} }),
      call("getItem", { pathArgs: { itemId: 5 } }),
      call("createItem"),
      call("missingVar"),
      call("stealSecret"),
      call("big", { pathArgs: { size: 9000 } }),
      call("image"),
      call("array"),
      call("redirOther"),
      call("slow"),
    ];
    for (const exchange of cases) {
      const { fromFast, fromSlow, laned } = await both(exchange);
      expect(fromFast, JSON.stringify(exchange.message)).toEqual(fromSlow);
      expect(laned).toBe(true);
    }
  });

  it("leaves to the SDK path what it does not answer itself, with the same answers", async () => {
    const unknownTool = call("noSuchTool");
    const badEnvelope: Exchange = {
      message: {
        id: 4,
        method: "tools/call",
        params: {
          name: "getItem",
          arguments: { pathArgs: { itemId: "1" } },
          _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": 5 },
        },
      },
    };
    const largeShape: Exchange = {
      message: {
        id: 17,
        method: "tools/list",
        params: {
          _meta: { ...META, "io.modelcontextprotocol/clientInfo": { name: "x".repeat(3000), version: "1" } },
        },
      },
    };
    const cases: Array<Exchange> = [
      unknownTool,
      // Standard headers that disagree with the body, or are missing.
      { ...call("getItem", { pathArgs: { itemId: "1" } }), headers: { "Mcp-Name": "createItem" } },
      { ...call("getItem", { pathArgs: { itemId: "1" } }), headers: { "Mcp-Method": "tools/list" } },
      { message: { id: 3, method: "tools/list", params: { _meta: META } }, headers: { "Mcp-Method": "tools/call" } },
      {
        message: { id: 3, method: "tools/list", params: { _meta: META } },
        headers: { "MCP-Protocol-Version": undefined },
      },
      // Envelopes the SDK refuses.
      call("getItem", { pathArgs: { itemId: "1" } }),
      badEnvelope,
      {
        message: {
          id: 5,
          method: "tools/list",
          params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
        },
      },
      // Malformed requests.
      { message: { id: 6, method: "tools/call", params: { name: "getItem", arguments: [1], _meta: META } } },
      { message: { id: 6.5, method: "tools/list", params: { _meta: META } } },
      { message: { id: null, method: "tools/list", params: { _meta: META } } },
      { message: { id: 8, method: "tools/list", params: { cursor: "not-a-cursor", _meta: META } } },
      { message: { id: 9, method: "tools/list", params: { _meta: META, extra: 1 } } },
      // A request shape too large to remember.
      largeShape,
      // Accept headers the transport may refuse.
      { message: { id: 10, method: "tools/list", params: { _meta: META } }, headers: { Accept: "text/event-stream" } },
      { message: { id: 11, method: "tools/list", params: { _meta: META } }, headers: { Accept: undefined } },
      // Authentication and access.
      { message: { id: 12, method: "tools/list", params: { _meta: META } }, token: "mcps_not-a-real-token" },
      { message: { id: 13, method: "tools/list", params: { _meta: META } }, headers: { Authorization: undefined } },
      { message: { id: 14, method: "tools/list", params: { _meta: META } }, token: fixture.proxyToken.value },
      { message: { id: 15, method: "tools/list", params: { _meta: META } }, path: "/mcp/srv_nope" },
      // Forwarding servers need the request's headers: the SDK path runs them.
      {
        ...call("getItem", { pathArgs: { itemId: "1" } }),
        path: `/mcp/${fixture.proxyServer.id}`,
        token: fixture.proxyToken.value,
      },
      // A tool name sent in the header's encoded form.
      {
        ...call("getItem", { pathArgs: { itemId: "1" } }),
        headers: { "Mcp-Name": `=?base64?${Buffer.from("getItem").toString("base64")}?=` },
      },
      // 2025-era requests.
      {
        message: { id: 16, method: "tools/list", params: {} },
        headers: { "MCP-Protocol-Version": "2025-11-25", "Mcp-Method": undefined },
      },
    ];
    for (const exchange of cases) {
      const { fromFast, fromSlow } = await both(exchange);
      expect(fromFast, JSON.stringify(exchange)).toEqual(fromSlow);
    }
    // None of these is answered by the lane: each goes to the SDK path.
    const before = fast.runtime.fastLaneAnswers();
    await both(unknownTool);
    await both(badEnvelope);
    await both(largeShape);
    expect(fast.runtime.fastLaneAnswers()).toBe(before);
  });

  it("answers a tenant over its limit as the SDK path does, without calling the upstream", async () => {
    refused.add("acme");
    try {
      for (const exchange of [
        call("getItem", { pathArgs: { itemId: "1" } }),
        { message: { id: 1, method: "tools/list", params: { _meta: META } } },
      ]) {
        const { fromFast, fromSlow } = await both(exchange);
        expect(fromFast).toEqual(fromSlow);
        expect(fromFast.status).toBe(429);
      }
    } finally {
      refused.delete("acme");
    }
  });

  it("answers a failing rate limiter as the SDK path does (an internal error, not a hang)", async () => {
    limiterDown = true;
    try {
      for (const exchange of [
        call("getItem", { pathArgs: { itemId: "1" } }),
        { message: { id: 1, method: "tools/list", params: { _meta: META } } },
      ]) {
        const { fromFast, fromSlow } = await both(exchange);
        expect(fromFast).toEqual(fromSlow);
        expect(fromFast.status).toBe(500);
      }
    } finally {
      limiterDown = false;
    }
  });

  it("serves a changed server's new tools at once (the kept answers are per revision)", async () => {
    const first = await both({ message: { id: 1, method: "tools/list", params: { _meta: META } } });
    const tool = await fixture.m.tool(fixture.provider.id, { name: "lateTool", method: "GET", path: "/echo/late" });
    await fixture.m.addTool(fixture.server.id, fixture.provider.id, tool.id);
    const second = await both({ message: { id: 1, method: "tools/list", params: { _meta: META } } });
    expect(second.fromFast).toEqual(second.fromSlow);
    expect(second.laned).toBe(true);
    expect(second.fromFast.body).not.toEqual(first.fromFast.body);
    expect(second.fromFast.body).toContain("lateTool");
    const called = await both(call("lateTool"));
    expect(called.fromFast).toEqual(called.fromSlow);
    expect(called.laned).toBe(true);
  });

  it("refuses a revoked token at once (the lane reads the token with the server's revision on every request)", async () => {
    const token = await fixture.m.token(fixture.server.id, { name: "short-lived" });
    const list = { message: { id: 1, method: "tools/list", params: { _meta: META } }, token: token.value };
    const before = await both(list);
    expect(before.laned).toBe(true);
    expect(before.fromFast.status).toBe(200);
    await fixture.m.revoke(fixture.server.id, token.id);
    for (const exchange of [list, { ...call("getItem", { pathArgs: { itemId: "1" } }), token: token.value }]) {
      const after = await both(exchange);
      expect(after.fromFast).toEqual(after.fromSlow);
      expect(after.fromFast.status).toBe(401);
      expect(after.laned).toBe(false);
    }
  });
});
