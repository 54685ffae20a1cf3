import { Storage } from "@mcpsm/domain/storage";
import { pruneToolCalls } from "@mcpsm/domain/use-cases";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { createProvider, createServer as createMcpServer, createToken, createTool } from "./support/records.js";

// docs/api-rules.md §24, the tool-call log: every tools/call (2025-era, 2026-07-28 on the SDK path and on the
// fast lane) is recorded without its argument values, listed per server (paged, filtered), aggregated as
// usage, streamed by the live tail, kept apart per tenant and pruned by age. Runs on the suite's store
// (memory, or PostgreSQL with API_TEST_STORAGE=postgres).

const PLANTED = "planted-argument-value-7f3a";
const capture: Array<string> = [];
let svc: TestService;
let upstream: Loopback;
let alice: Tenant;
let bob: Tenant;
let serverId: string;
let headersServerId: string;
let tokenId: string;
let tokenValue: string;
let headersToken: string;
const clients: Array<Client> = [];

const upstreamUrl = () => upstream.url;

const connect = async (id: string, token: string, era: "2025-11-25" | "2026-07-28") => {
  const client = new Client(
    { name: "call-log-test", version: "1" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${id}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
};

beforeAll(async () => {
  upstream = await listenOnLoopback((req, res) => {
    if ((req.url ?? "").startsWith("/big")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(Array.from({ length: 600 }, (_, i) => ({ id: i, name: `item number ${i}` }))));
    }
    if ((req.url ?? "").startsWith("/fail")) {
      res.writeHead(503, { "content-type": "application/json" });
      return res.end('{"error":"down"}');
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"items":[1,2,3],"note":"twenty-six characters"}');
  });
  svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] }, captureArguments: capture });
  alice = await svc.tenant("calls");
  bob = await svc.tenant("other");
  const provider = await createProvider(alice.api, { baseURL: upstreamUrl() });
  const query = { type: "object", properties: { q: { type: "string" }, n: { type: "integer" } } };
  await createTool(alice.api, provider.id, { name: "search", path: "/items", queryArgsJSONSchema: query });
  await createTool(alice.api, provider.id, { name: "broken", path: "/fail" });
  serverId = (await createMcpServer(alice.api, { providers: [{ id: provider.id }] })).id;
  const token = await createToken(alice.api, serverId);
  tokenId = token.id;
  tokenValue = token.value;
  // Forwarded request headers keep a 2026-07-28 call on the SDK path (the fast lane has no request context).
  headersServerId = (
    await createMcpServer(alice.api, { providers: [{ id: provider.id }], requestHeadersProxyEnabled: true })
  ).id;
  headersToken = (await createToken(alice.api, headersServerId)).value;
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await svc?.close();
  await upstream?.close();
});

const calls = async (id: string, query = "", tenant = alice) => {
  const res = await tenant.api.get(`/servers/${id}/calls${query}`);
  return res;
};

describe("the tool-call log", () => {
  it("records calls of both protocol eras and of the fast lane, without argument values", async () => {
    const legacy = await connect(serverId, tokenValue, "2025-11-25");
    const modern = await connect(serverId, tokenValue, "2026-07-28");
    const viaSdk = await connect(headersServerId, headersToken, "2026-07-28");
    const first = await legacy.callTool({ name: "search", arguments: { queryArgs: { q: PLANTED, n: 1 } } });
    expect(first.isError, JSON.stringify(first)).toBeFalsy();
    expect(
      (await modern.callTool({ name: "search", arguments: { queryArgs: { q: PLANTED, n: 2 } } })).isError,
    ).toBeFalsy();
    expect((await modern.callTool({ name: "broken" })).isError).toBe(true);
    expect((await viaSdk.callTool({ name: "search", arguments: { queryArgs: { q: PLANTED } } })).isError).toBeFalsy();
    await svc.flushCalls();

    const res = await calls(serverId);
    expect(res.status).toBe(200);
    expect(res.body.matchCount).toBe(3);
    const [broken, modernCall, legacyCall] = res.body.calls;
    expect(legacyCall).toMatchObject({
      tool: "search",
      era: "legacy",
      status: "ok",
      errorType: "",
      upstreamStatus: 200,
    });
    expect(modernCall).toMatchObject({ tool: "search", era: "modern", status: "ok", upstreamStatus: 200 });
    expect(broken).toMatchObject({ tool: "broken", era: "modern", status: "tool_error", upstreamStatus: 503 });
    for (const call of res.body.calls) {
      expect(call.principal).toBe(`server-token:${tokenId}`);
      expect(call.latencyMs).toBeGreaterThan(0);
      // A 2xx answer carries shaping's counts; the 503 (never shaped) an estimate and no count after.
      if (call.status === "ok") {
        expect(call.tokensBefore).toBeGreaterThan(0);
        expect(call.tokensAfter).toBe(call.tokensBefore);
      } else {
        expect(call.tokensBefore).toBe(Math.ceil(call.resultChars / 4));
        expect(call.tokensAfter).toBeNull();
      }
      expect(call).not.toHaveProperty("arguments");
    }
    expect(legacyCall.resultChars).toBeGreaterThan(20);
    const sdk = (await calls(headersServerId)).body.calls;
    expect(sdk).toHaveLength(1);
    expect(sdk[0]).toMatchObject({ tool: "search", era: "modern", status: "ok" });
    // Nothing the caller sent is kept: not in the listing, nor in the request logs.
    expect(JSON.stringify(res.body)).not.toContain(PLANTED);
    expect(JSON.stringify(svc.logs)).not.toContain(PLANTED);
    // The request log names the MCP method and the tool.
    const mcpLines = svc.logs.filter((line) => line.msg === "request" && line.path === `/mcp/${serverId}`);
    expect(mcpLines.some((line) => line.mcpMethod === "tools/call" && line.tool === "search")).toBe(true);
    expect(
      mcpLines.some(
        (line) => line.mcpMethod === "tools/list" || line.mcpMethod === "initialize" || line.mcpMethod === undefined,
      ),
    ).toBe(true);
  });

  it("records the result's tokens before and after shaping (the counts shaping made)", async () => {
    // A tenant of its own, so the other tests' counts stay as they are.
    const carol = await svc.tenant("tokens");
    const provider = await createProvider(carol.api, { baseURL: upstreamUrl() });
    await createTool(carol.api, provider.id, { name: "big", path: "/big" });
    const small = (await createMcpServer(carol.api, { providers: [{ id: provider.id }], maxResultTokens: 1000 })).id;
    const client = await connect(small, (await createToken(carol.api, small)).value, "2026-07-28");
    expect((await client.callTool({ name: "big" })).isError).toBeFalsy();
    await svc.flushCalls();
    const [call] = (await calls(small, "", carol)).body.calls;
    expect(call).toMatchObject({ tool: "big", status: "ok" });
    expect(call.tokensBefore).toBeGreaterThan(1000);
    expect(call.tokensAfter).toBeLessThanOrEqual(1000);
    expect(call.tokensAfter).toBeGreaterThan(0);
  });

  it("pages like §11 and filters by tool, status and since", async () => {
    const byStatus = await calls(serverId, "?status=tool_error");
    expect(byStatus.body.calls.map((c: { tool: string }) => c.tool)).toEqual(["broken"]);
    const byTool = await calls(serverId, "?tool=search");
    expect(byTool.body.matchCount).toBe(2);
    const future = await calls(serverId, "?since=2999-01-01T00:00:00Z");
    expect(future.body).toMatchObject({ calls: [], matchCount: 0, nextToken: "" });
    const first = await calls(serverId, "?limit=2");
    expect(first.body.calls).toHaveLength(2);
    expect(first.body.nextToken).not.toBe("");
    const second = await calls(serverId, `?limit=2&token=${encodeURIComponent(first.body.nextToken)}`);
    expect(second.body.calls).toHaveLength(1);
    expect(second.body.nextToken).toBe("");
    // A token is valid only with the filters it was made for.
    expect((await calls(serverId, `?limit=2&status=ok&token=${encodeURIComponent(first.body.nextToken)}`)).status).toBe(
      400,
    );
    const bad = await calls(serverId, "?status=fine&since=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["since", "status"]);
  });

  it("keeps tenants apart and needs server:read", async () => {
    expect((await calls(serverId, "", bob)).status).toBe(404);
    expect((await bob.api.get(`/servers/${serverId}/usage`)).status).toBe(404);
    expect((await bob.api.get("/usage")).body.totals.calls).toBe(0);
    const listOnly = svc.client(await svc.token(alice.id, ["server:list"]));
    expect((await listOnly.get(`/servers/${serverId}/calls`)).status).toBe(403);
    expect((await listOnly.get("/usage")).status).toBe(200);
  });

  it("answers usage per server and per tenant: calls, error rate, latency percentiles, tokens", async () => {
    const server = await alice.api.get(`/servers/${serverId}/usage?bucket=minute`);
    expect(server.status).toBe(200);
    expect(server.body.totals).toMatchObject({ calls: 3, errors: 1 });
    expect(server.body.totals.errorRate).toBeCloseTo(1 / 3, 3);
    expect(server.body.totals.p95LatencyMs).toBeGreaterThanOrEqual(server.body.totals.p50LatencyMs);
    expect(server.body.totals.p50LatencyMs).toBeGreaterThan(0);
    expect(server.body.series.reduce((n: number, p: { calls: number }) => n + p.calls, 0)).toBe(3);
    // Per tool: the average answer, before shaping and as the caller received it, from the calls listed.
    const listed: Array<{ tool: string; tokensBefore: number; tokensAfter: number | null }> = (await calls(serverId))
      .body.calls;
    const average = (tool: string, pick: (c: (typeof listed)[number]) => number) => {
      const of = listed.filter((c) => c.tool === tool);
      return Math.round(of.reduce((n, c) => n + pick(c), 0) / of.length);
    };
    expect(server.body.tools).toEqual([
      {
        tool: "search",
        calls: 2,
        errors: 0,
        errorRate: 0,
        averageTokensBefore: average("search", (c) => c.tokensBefore),
        averageTokensAfter: average("search", (c) => c.tokensAfter ?? c.tokensBefore),
      },
      {
        tool: "broken",
        calls: 1,
        errors: 1,
        errorRate: 1,
        averageTokensBefore: average("broken", (c) => c.tokensBefore),
        averageTokensAfter: average("broken", (c) => c.tokensBefore),
      },
    ]);
    expect(server.body.tools[0].averageTokensBefore).toBeGreaterThan(0);
    const tenant = await alice.api.get("/usage");
    expect(tenant.body.tools).toEqual([]);
    expect(tenant.body.totals.calls).toBe(4);
    expect(tenant.body.servers.map((s: { serverId: string; calls: number }) => [s.serverId, s.calls])).toEqual([
      [serverId, 3],
      [headersServerId, 1],
    ]);
    expect((await alice.api.get("/usage?bucket=minute&since=2020-01-01T00:00:00Z")).status).toBe(400);
  });

  it("streams new calls to a live tail (Server-Sent Events)", async () => {
    const abort = new AbortController();
    const res = await fetch(`${svc.url}/servers/${serverId}/calls/stream`, {
      headers: { Authorization: `Bearer ${alice.token}` },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const client = await connect(serverId, tokenValue, "2026-07-28");
    await client.callTool({ name: "search", arguments: { queryArgs: { q: "tail" } } });
    await svc.flushCalls();
    let text = "";
    while (!text.includes("event: call")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    abort.abort();
    const data = JSON.parse(/data: (.*)\n/.exec(text.slice(text.indexOf("event: call")))?.[1] ?? "{}");
    expect(data).toMatchObject({ tool: "search", era: "modern", status: "ok" });
    expect(text).toMatch(/id: \d+\.[A-Za-z0-9_-]+\n/);
    // Another tenant's tail of the server is a 404 before any stream starts.
    const other = await fetch(`${svc.url}/servers/${serverId}/calls/stream`, {
      headers: { Authorization: `Bearer ${bob.token}` },
    });
    expect(other.status).toBe(404);
    expect((await fetch(`${svc.url}/servers/${serverId}/calls/stream`)).status).toBe(401);
  });

  it("keeps masked arguments for a server that opted in", async () => {
    capture.push(headersServerId);
    try {
      const client = await connect(headersServerId, headersToken, "2026-07-28");
      await client.callTool({ name: "search", arguments: { queryArgs: { q: PLANTED, n: 7 } } });
      await svc.flushCalls();
      const [latest] = (await calls(headersServerId)).body.calls;
      expect(latest.arguments).toEqual({ queryArgs: { q: "***", n: 7 } });
      expect(JSON.stringify(latest)).not.toContain(PLANTED);
    } finally {
      capture.length = 0;
    }
  });

  it("prunes calls older than the retention", async () => {
    const old = new Date(Date.now() - 40 * 86_400_000);
    await Effect.runPromise(
      svc.storage.calls.appendCalls([
        {
          id: "oldcall0001",
          tenant: alice.id,
          serverId,
          at: old,
          tool: "search",
          principal: `server-token:${tokenId}`,
          era: "modern",
          status: "ok",
          errorType: "",
          upstreamStatus: 200,
          latencyMs: 3,
          resultChars: 10,
          tokensBefore: 3,
          tokensAfter: null,
          arguments: null,
        },
      ]),
    );
    const before = (await calls(serverId)).body.calls.map((c: { id: string }) => c.id);
    expect(before).toContain("oldcall0001");
    const pruned = await Effect.runPromise(pruneToolCalls(30).pipe(Effect.provideService(Storage, svc.storage)));
    expect(pruned).toBeGreaterThanOrEqual(1);
    const after = (await calls(serverId)).body.calls.map((c: { id: string }) => c.id);
    expect(after).not.toContain("oldcall0001");
    expect(after.length).toBe(before.length - 1);
  });
});
