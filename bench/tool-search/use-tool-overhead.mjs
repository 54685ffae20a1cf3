// What running a tool through useTool (dynamic tool discovery, docs/api-rules.md §14) costs over calling it
// directly with tools/call, same server, same client, same run (the mcp-latency.mjs pattern).
//
//   ./run build && node bench/tool-search/use-tool-overhead.mjs [calls=2000]
//
// 1. In process: discoveryToolCall(compiled, "useTool", …) — the only step useTool adds before the very
//    function tools/call runs — timed over many calls (its argument check and the tool lookup).
// 2. End to end: a local upstream and the real service (apps/api, in-memory store, dev auth); a server with
//    discovery on and one GET tool; rounds alternate tools/call getItem and tools/call useTool {getItem}.
//    Prints the median and p90 of each and the difference (loopback HTTP: expect noise of tens of µs).
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { localConfig } from "@mcpsm/api/dist/config/local-config.js";
import { DEFAULT_SECURITY_SETTINGS } from "@mcpsm/api/dist/config/security-config.js";
import { startService } from "@mcpsm/api/dist/service.js";
import { defaultMcpSettings, discoveryToolCall } from "@mcpsm/mcp-runtime";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import pino from "pino";

const CALLS = Number(process.argv[2] ?? 2000);
const WARMUP = 200;
const args = { pathArgs: { id: "42" }, queryArgs: { verbose: true } };

// 1. In process.
{
  const compiled = { tools: new Map([["getItem", { name: "getItem" }]]) };
  const raw = { name: "getItem", arguments: args };
  const N = 200_000;
  for (let i = 0; i < 10_000; i++) discoveryToolCall(compiled, "useTool", raw);
  const started = process.hrtime.bigint();
  for (let i = 0; i < N; i++) discoveryToolCall(compiled, "useTool", raw);
  const us = Number(process.hrtime.bigint() - started) / 1e3 / N;
  console.log(`in process: discoveryToolCall(useTool) ${us.toFixed(2)} µs per call (${N} calls)`);
}

// 2. End to end.
const payload = JSON.stringify({ id: 42, name: "widget", tags: ["a", "b"], price: 9.99 });
const upstream = createServer((_req, res) => {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(payload);
});
await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamUrl = `http://127.0.0.1:${upstream.address().port}`;
const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-"));
const service = await startService(
  localConfig(dataDir, {
    mcp: defaultMcpSettings({ upstreamAllowedNetworks: ["127.0.0.0/8"] }),
    // Both subjects make thousands of calls a minute: the tenant limit is not what is measured.
    security: { ...DEFAULT_SECURITY_SETTINGS, rateLimit: { ...DEFAULT_SECURITY_SETTINGS.rateLimit, enabled: false } },
  }),
  { logger: pino({ level: "silent" }) },
);
const admin = await mintDevToken(dataDir, { subject: "bench" });
const api = async (path, body) => {
  const response = await fetch(`${service.url}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
};
const { provider } = await api("/providers", { provider: { name: "Bench", baseURL: upstreamUrl } });
await api(`/providers/${provider.id}/tools`, {
  tool: {
    name: "getItem",
    method: "GET",
    path: "/items/{id}",
    pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    queryArgsJSONSchema: { type: "object", properties: { verbose: { type: "boolean" } } },
  },
});
const { server } = await api("/servers", {
  server: { name: "Bench", dynamicToolDiscoveryEnabled: true, providers: [{ id: provider.id }] },
});
const { token } = await api(`/servers/${server.id}/tokens`, { token: { name: "bench" } });
const client = new Client({ name: "bench", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${service.url}/mcp/${server.id}`), {
    requestInit: { headers: { Authorization: `Bearer ${token.value}` } },
  }),
);
const check = (result) => {
  if (result.isError) throw new Error(JSON.stringify(result));
};
const subjects = {
  direct: async () => check(await client.callTool({ name: "getItem", arguments: args })),
  useTool: async () =>
    check(await client.callTool({ name: "useTool", arguments: { name: "getItem", arguments: args } })),
};
const samples = { direct: [], useTool: [] };
for (let i = 0; i < WARMUP; i++) for (const run of Object.values(subjects)) await run();
for (let i = 0; i < CALLS; i++)
  for (const [name, run] of i % 2 === 0 ? Object.entries(subjects) : Object.entries(subjects).reverse()) {
    const started = process.hrtime.bigint();
    await run();
    samples[name].push(Number(process.hrtime.bigint() - started) / 1e6);
  }
const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const f = (ms) => `${ms.toFixed(3)} ms`;
const line = (name) => `median ${f(pct(samples[name], 50))}  p90 ${f(pct(samples[name], 90))}`;
console.log(`end to end, ${CALLS} calls each (after ${WARMUP} warm-up), node ${process.version}`);
console.log(`tools/call getItem            ${line("direct")}`);
console.log(
  `tools/call useTool {getItem}  ${line("useTool")}  added: median ${f(pct(samples.useTool, 50) - pct(samples.direct, 50))}, p90 ${f(pct(samples.useTool, 90) - pct(samples.direct, 90))} (goal ≤ 0.1 ms)`,
);
await client.close();
await service.close();
upstream.closeAllConnections();
upstream.close();
await rm(dataDir, { recursive: true, force: true });
