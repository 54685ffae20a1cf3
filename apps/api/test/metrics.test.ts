import { ALL_SCOPES } from "@mcpsm/domain";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigProvider, Effect } from "effect";
import { operationsConfig } from "../src/config/operations-config.js";
import { DEFAULT_SECURITY_SETTINGS } from "../src/config/security-config.js";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { leakedIn, plantedCount } from "./support/planted-secrets.js";
import {
  createProvider,
  createServer as createMcpServer,
  createToken,
  createTool,
  createVariable,
} from "./support/records.js";

// docs/api-rules.md §18, metrics: after a known mix of management requests, MCP operations and upstream calls,
// the /metrics listener (scraped and parsed as Prometheus text) counts exactly those, under the semantic
// conventions' names and bounded labels; nothing secret appears in it.

let svc: TestService;
let upstream: Loopback;
let alice: Tenant;
let serverId: string;
let providerId: string;
let client: Client;

/**
 * Scrapes the listener. `families` is the parse of the whole text (names, HELP, TYPE); `series` the parse of
 * its sample lines alone, where every series (a histogram's `_count` included) keeps its labels: the
 * parser folds a histogram family's labelled series into one, so histograms are read through `_count`.
 */
const scrape = async (url = svc.metricsUrl) => {
  if (url === undefined) throw new Error("the service runs no metrics listener");
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const series = parsePrometheusTextFormat(
    text
      .split("\n")
      .filter((line) => !line.startsWith("#"))
      .join("\n"),
  );
  return { text, families: parsePrometheusTextFormat(text), series };
};

type Series = ReturnType<typeof parsePrometheusTextFormat>;
/** The samples named `name` whose labels include `labels` ("" matches an absent label). */
const samples = (series: Series, name: string, labels: Record<string, string> = {}) =>
  series
    .filter((f) => f.name === name)
    .flatMap((f) => f.metrics)
    .filter((m) => Object.entries(labels).every(([k, v]) => (m.labels?.[k] ?? "") === v));
/** The sum of the samples named `name` (a counter, or a histogram's `<name>_count`) matching `labels`. */
const total = (series: Series, name: string, labels: Record<string, string> = {}) =>
  samples(series, name, labels).reduce((n, m) => n + Number(m.value ?? 0), 0);
/** How many observations a histogram holds in its series matching `labels`. */
const count = (series: Series, histogram: string, labels: Record<string, string> = {}) =>
  total(series, `${histogram}_count`, labels);

beforeAll(async () => {
  upstream = await listenOnLoopback((req, res) => {
    if ((req.url ?? "").startsWith("/fail")) {
      res.writeHead(503, { "content-type": "application/json" });
      return res.end('{"error":"down"}');
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"ok":true}');
  });
  svc = await startTestService({
    metrics: true,
    mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] },
    quotas: { variablesPerTenant: 1 },
  });
  alice = await svc.tenant("metrics");
  const provider = await createProvider(alice.api, {
    baseURL: upstream.url,
  });
  await createTool(alice.api, provider.id, { name: "okTool", path: "/ok" });
  await createTool(alice.api, provider.id, { name: "failTool", path: "/fail" });
  // Its description says `ok` is a string; the upstream answers a boolean (docs/api-rules.md §15a).
  await createTool(alice.api, provider.id, {
    name: "sloppyTool",
    path: "/ok",
    respBodyJSONSchema: { type: "object", properties: { ok: { type: "string" } } },
  });
  providerId = provider.id;
  const server = await createMcpServer(alice.api, { providers: [{ id: provider.id }] });
  serverId = server.id;
  const token = await createToken(alice.api, server.id);
  client = new Client({ name: "metrics", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${server.id}`), {
      requestInit: { headers: { Authorization: `Bearer ${token.value}` } },
    }),
  );
});
afterAll(async () => {
  await client?.close();
  await svc?.close();
  await upstream?.close();
});

describe("the /metrics listener", () => {
  it("counts a known mix of calls under the semantic conventions' names and labels", async () => {
    const before = (await scrape()).series;
    await client.listTools();
    for (let i = 0; i < 3; i++) expect((await client.callTool({ name: "okTool" })).isError).toBeFalsy();
    for (let i = 0; i < 2; i++) expect((await client.callTool({ name: "failTool" })).isError).toBe(true);
    // Made-up tool names (a hostile client) are refused and never become label values.
    for (let i = 0; i < 5; i++) await expect(client.callTool({ name: `madeUp${i}` })).rejects.toThrow();
    for (let i = 0; i < 2; i++) expect((await alice.api.get(`/servers/${serverId}`)).status).toBe(200);
    expect((await alice.api.get("/nowhere/at/all")).status).toBe(404);
    const readOnly = svc.client(await svc.token(alice.id, ["variable:list"]));
    expect((await readOnly.post("/variables", { variable: { type: "ENV", name: "X", value: "y" } })).status).toBe(403);
    // The tenant's quota is 1 variable: the second create is a quota refusal.
    await createVariable(alice.api);
    expect((await alice.api.post("/variables", { variable: { type: "ENV", name: "Y2", value: "y" } })).status).toBe(
      429,
    );

    const { series } = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      count(series, name, labels) - count(before, name, labels);
    const mcp = "mcp_server_operation_duration_seconds";
    expect(delta(mcp, { mcp_method_name: "tools/list", gen_ai_tool_name: "", error_type: "" })).toBe(1);
    expect(delta(mcp, { mcp_method_name: "tools/call", gen_ai_tool_name: "okTool", error_type: "" })).toBe(3);
    // The bounded `server` label: the server's id (service-generated), never a tenant-written string.
    expect(delta(mcp, { mcp_method_name: "tools/call", gen_ai_tool_name: "okTool", server: serverId })).toBe(3);
    expect(delta(mcp, { mcp_method_name: "tools/call", gen_ai_tool_name: "failTool", error_type: "tool_error" })).toBe(
      2,
    );
    expect(delta(mcp, { mcp_method_name: "tools/call", gen_ai_tool_name: "", error_type: "-32602" })).toBe(5);
    const toolNames = new Set(samples(series, `${mcp}_count`).map((m) => m.labels?.gen_ai_tool_name ?? ""));
    expect([...toolNames].sort()).toEqual(["", "failTool", "okTool"]);

    const client_ = "http_client_request_duration_seconds";
    expect(delta(client_, { server_address: "127.0.0.1", http_response_status_code: "200", error_type: "" })).toBe(3);
    expect(delta(client_, { server_address: "127.0.0.1", http_response_status_code: "503", error_type: "503" })).toBe(
      2,
    );

    const http = "http_server_request_duration_seconds";
    expect(
      delta(http, { http_route: "/servers/{id}", http_request_method: "GET", http_response_status_code: "200" }),
    ).toBe(2);
    expect(delta(http, { http_route: "", http_request_method: "GET", http_response_status_code: "404" })).toBe(1);
    expect(
      delta(http, { http_route: "/variables", http_request_method: "POST", http_response_status_code: "403" }),
    ).toBe(1);
    expect(
      delta(http, { http_route: "/variables", http_request_method: "POST", http_response_status_code: "429" }),
    ).toBe(1);
    // listTools + 10 calls (and the client's own initialize/notifications) all under the template.
    expect(delta(http, { http_route: "/mcp/{serverId}", http_request_method: "POST" })).toBeGreaterThanOrEqual(11);
    // Route templates only: no label value holds an id.
    for (const m of samples(series, `${http}_count`)) expect(m.labels?.http_route ?? "").not.toMatch(/[A-Za-z0-9]{11}/);

    expect(total(series, "mcpsm_quota_refusals_total", { operation: "createVariable" })).toBe(1);
  });

  it("keeps label values bounded under hostile paths and methods", async () => {
    for (let i = 0; i < 10; i++) await fetch(`${svc.url}/mcp/${"x".repeat(i + 1)}AAAAAAAA`, { method: "POST" });
    for (let i = 0; i < 10; i++) await fetch(`${svc.url}/servers/${"q".repeat(11)}/x${i}`);
    await fetch(`${svc.url}/servers`, { method: "PROPFIND" });
    const { series } = await scrape();
    const routes = new Set(
      samples(series, "http_server_request_duration_seconds_count").map((m) => m.labels?.http_route),
    );
    for (const route of routes) expect(route === "" || route?.startsWith("/")).toBe(true);
    expect([...routes].filter((r) => r?.includes("xAAAA") || r?.includes("qqq"))).toEqual([]);
    const methods = new Set(
      samples(series, "http_server_request_duration_seconds_count").map((m) => m.labels?.http_request_method),
    );
    expect([...methods].every((m) => ["GET", "POST", "PATCH", "DELETE", "HEAD", "_OTHER"].includes(m ?? ""))).toBe(
      true,
    );
  });

  it("counts a 2xx answer that fits not even the lenient outputSchema, by reason only", async () => {
    const mismatches = (series: Series) => total(series, "mcpsm_tool_output_mismatches_total", { reason: "schema" });
    const before = mismatches((await scrape()).series);
    await client.listTools();
    const result = await client.callTool({ name: "sloppyTool" });
    expect(result.isError).toBeFalsy();
    const { series, text } = await scrape();
    expect(mismatches(series) - before).toBe(1);
    expect(text).not.toMatch(/mcpsm_tool_output_mismatches_total\{[^}]*sloppyTool/);
  });

  it("counts the MCP path's cache misses: a cold server compiles once, then the gate's memo answers", async () => {
    const server = await createMcpServer(alice.api, { name: "Cache metrics", providers: [{ id: providerId }] });
    const token = await createToken(alice.api, server.id);
    const before = (await scrape()).series;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${svc.url}/mcp/${server.id}`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token.value}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "MCP-Protocol-Version": "2026-07-28",
          "Mcp-Method": "tools/list",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: i,
          method: "tools/list",
          params: {
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientInfo": { name: "metrics", version: "1" },
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      });
      expect(res.status).toBe(200);
      await res.text();
    }
    const { series, text } = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      total(series, name, labels) - total(before, name, labels);
    expect(delta("mcpsm_mcp_server_compiles_total")).toBe(1);
    expect(delta("mcpsm_mcp_admission_memo_lookups_total", { result: "miss" })).toBe(1);
    expect(delta("mcpsm_mcp_admission_memo_lookups_total", { result: "hit" })).toBe(2);
    expect(total(series, "mcpsm_mcp_compiled_servers")).toBeGreaterThanOrEqual(1);
    expect(total(series, "mcpsm_mcp_compiled_cache_bytes")).toBeGreaterThan(0);
    expect(total(series, "mcpsm_mcp_shared_answers")).toBeGreaterThanOrEqual(1);
    expect(text).toContain("# TYPE mcpsm_mcp_server_compiles_total counter");
    expect(text).toContain("# TYPE mcpsm_mcp_compiled_tools gauge");
  });

  it("exposes the process defaults and declares the refusal, OAuth and git counters", async () => {
    const { families, text } = await scrape();
    for (const name of [
      "process_cpu_user_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_seconds",
      "nodejs_heap_size_used_bytes",
    ])
      expect(
        families.some((f) => f.name === name),
        name,
      ).toBe(true);
    for (const name of [
      "mcpsm_rate_limit_refusals_total",
      "mcpsm_quota_refusals_total",
      "mcpsm_oauth_token_requests_total",
      "mcpsm_git_pushes_total",
    ])
      expect(text).toContain(`# TYPE ${name} counter`);
  });

  it("holds no secret: no token, variable value or client secret the suite sent", async () => {
    const provider = await createProvider(alice.api, {
      oauth2Config: {
        clientID: "metrics-client",
        clientSecret: "metrics-client-secret-5f3a9c",
        tokenURL: "https://auth.example/token",
      },
    });
    expect(provider.id).toBeDefined();
    const { text } = await scrape();
    expect(plantedCount()).toBeGreaterThan(2);
    expect(leakedIn(text)).toEqual([]);
  });

  it("answers only GET /metrics", async () => {
    const base = new URL(svc.metricsUrl ?? "");
    expect((await fetch(new URL("/", base))).status).toBe(404);
    expect((await fetch(base, { method: "POST" })).status).toBe(405);
    expect((await fetch(base, { method: "HEAD" })).status).toBe(200);
  });
});

describe("rate-limit refusals", () => {
  it("count by the limit that refused", async () => {
    const limited = await startTestService({
      metrics: true,
      security: {
        rateLimit: {
          ...DEFAULT_SECURITY_SETTINGS.rateLimit,
          enabled: true,
          tenant: { points: 2, windowSeconds: 60, burst: 0 },
        },
      },
    });
    try {
      const api = limited.client(await limited.token("limited", ALL_SCOPES));
      const statuses: Array<number> = [];
      for (let i = 0; i < 5; i++) statuses.push((await api.get("/servers")).status);
      expect(statuses.filter((s) => s === 429)).toHaveLength(3);
      const { series } = await scrape(limited.metricsUrl);
      expect(total(series, "mcpsm_rate_limit_refusals_total", { limit: "tenant" })).toBe(3);
      expect(total(series, "mcpsm_rate_limit_refusals_total", { limit: "address" })).toBe(0);
    } finally {
      await limited.close();
    }
  });

  it("METRICS_PORT defaults to 9464, 0 turns the listener off; AUDIT_RETENTION_DAYS defaults to 90, CALL_LOG_RETENTION_DAYS to 30", async () => {
    const read = (env: Record<string, string>) =>
      Effect.runPromise(
        Effect.withConfigProvider(operationsConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))),
      );
    expect(await read({})).toEqual({
      metricsPort: 9464,
      auditRetentionDays: 90,
      callLogRetentionDays: 30,
      callLogCaptureArguments: [],
    });
    expect(
      await read({
        METRICS_PORT: "0",
        AUDIT_RETENTION_DAYS: "7",
        CALL_LOG_RETENTION_DAYS: "3",
        CALL_LOG_CAPTURE_ARGUMENTS: "srvA1234567, srvB1234567",
      }),
    ).toEqual({
      metricsPort: undefined,
      auditRetentionDays: 7,
      callLogRetentionDays: 3,
      callLogCaptureArguments: ["srvA1234567", "srvB1234567"],
    });
    await expect(read({ CALL_LOG_RETENTION_DAYS: "0" })).rejects.toThrow();
    await expect(read({ METRICS_PORT: "70000" })).rejects.toThrow();
    await expect(read({ AUDIT_RETENTION_DAYS: "0" })).rejects.toThrow();
    const off = await startTestService();
    try {
      expect(off.metricsUrl).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});
