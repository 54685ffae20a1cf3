import { describe, expect, it } from "vitest";
import { HOST_FRAME, postToBoth, useLanePair } from "./support/lane-pair.js";

// The fast lane answers the common 2026-07-28 tools/list and tools/call POSTs without the SDK's per-exchange
// machinery. Whatever it answers must be byte for byte what the SDK path answers: every request below is sent
// to a runtime with the lane and to one without it (same store, same upstream), and the two answers compared.

// Handed the headers of a host's request frame, as the service hands them (the lane merges them into its
// one writeHead; the SDK path has them set first).
const pair = useLanePair(HOST_FRAME);

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
    Authorization: `Bearer ${exchange.token ?? pair.fixture.token.value}`,
    ...exchange.headers,
  };
  const body = JSON.stringify({ jsonrpc: "2.0", ...exchange.message });
  return postToBoth(pair, exchange.path ?? `/mcp/${pair.fixture.server.id}`, headers, body);
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
      { message: { id: 14, method: "tools/list", params: { _meta: META } }, token: pair.fixture.proxyToken.value },
      { message: { id: 15, method: "tools/list", params: { _meta: META } }, path: "/mcp/srv_nope" },
      // Forwarding servers need the request's headers: the SDK path runs them.
      {
        ...call("getItem", { pathArgs: { itemId: "1" } }),
        path: `/mcp/${pair.fixture.proxyServer.id}`,
        token: pair.fixture.proxyToken.value,
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
    const before = pair.fast.runtime.fastLaneAnswers();
    await both(unknownTool);
    await both(badEnvelope);
    await both(largeShape);
    expect(pair.fast.runtime.fastLaneAnswers()).toBe(before);
  });

  it("answers a tenant over its limit as the SDK path does, without calling the upstream", async () => {
    pair.rateLimit.refused.add("acme");
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
      pair.rateLimit.refused.delete("acme");
    }
  });

  it("answers a failing rate limiter as the SDK path does (an internal error, not a hang)", async () => {
    pair.rateLimit.down = true;
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
      pair.rateLimit.down = false;
    }
  });

  it("serves a changed server's new tools at once (the kept answers are per revision)", async () => {
    const first = await both({ message: { id: 1, method: "tools/list", params: { _meta: META } } });
    const tool = await pair.fixture.m.tool(pair.fixture.provider.id, {
      name: "lateTool",
      method: "GET",
      path: "/echo/late",
    });
    await pair.fixture.m.addTool(pair.fixture.server.id, pair.fixture.provider.id, tool.id);
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
    const token = await pair.fixture.m.token(pair.fixture.server.id, { name: "short-lived" });
    const list = { message: { id: 1, method: "tools/list", params: { _meta: META } }, token: token.value };
    const before = await both(list);
    expect(before.laned).toBe(true);
    expect(before.fromFast.status).toBe(200);
    await pair.fixture.m.revoke(pair.fixture.server.id, token.id);
    for (const exchange of [list, { ...call("getItem", { pathArgs: { itemId: "1" } }), token: token.value }]) {
      const after = await both(exchange);
      expect(after.fromFast).toEqual(after.fromSlow);
      expect(after.fromFast.status).toBe(401);
      expect(after.laned).toBe(false);
    }
  });
});

describe("what the lane keeps per compiled server", () => {
  it("keeps no tools/list answer for a tools/call; a tools/list's is kept and counted in the cache's budget", async () => {
    const { m, provider } = pair.fixture;
    const server = await m.server({ name: "Kept answers", providers: [{ id: provider.id }] });
    const token = (await m.token(server.id)).value;
    const cache = pair.fast.runtime.cache;
    const send = (exchange: Exchange) => both({ ...exchange, path: `/mcp/${server.id}`, token });

    const first = await send(call("getItem", { pathArgs: { itemId: "1" } }));
    expect(first.laned).toBe(true);
    const compiled = cache.bytes;
    expect((await send(call("getItem", { pathArgs: { itemId: "2" } }, 8))).laned).toBe(true);
    expect(cache.bytes).toBe(compiled);

    const listed = await send({ message: { id: 9, method: "tools/list", params: { _meta: META } } });
    expect(listed.laned).toBe(true);
    const parsed = JSON.parse(listed.fromFast.body).result;
    const own = JSON.stringify(parsed).slice(`{"tools":${JSON.stringify(parsed.tools)}`.length);
    // Kept encoded, its bytes counted: the tools once for every server that lists them alike (other servers of
    // this provider were listed before), the server's own rest (its name in `_meta`) for it.
    expect(cache.sharedCount).toBeGreaterThanOrEqual(1);
    expect(cache.bytes - compiled).toBeGreaterThanOrEqual(Buffer.byteLength(own));
    const kept = cache.bytes;
    expect((await send(call("getItem", { pathArgs: { itemId: "3" } }, 10))).laned).toBe(true);
    expect((await send({ message: { id: 11, method: "tools/list", params: { _meta: META } } })).laned).toBe(true);
    expect(cache.bytes).toBe(kept);
  });
});
