// Added latency of an MCP tools/call over calling the upstream directly, same machine, same run.
//
//   ./run build && node bench/mcp-latency.mjs [calls=2000]
//
// Starts a local upstream (node:http, 127.0.0.1) and the real service (apps/api, in-memory store, dev auth),
// composes a server with one GET tool through the management API, then times, one call at a time:
//   direct  — GET to the upstream with undici's fetch (keep-alive), as a client without MCP would;
//   mcp     — tools/call of the same request through /mcp/{serverId} with the SDK client, per era.
// Rounds alternate (direct, modern, legacy) so drift hits all three alike. Prints median and p99 of each
// and the added latency (mcp minus direct) at those percentiles.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { localConfig } from "@mcpsm/api/dist/config/local-config.js";
import { startService } from "@mcpsm/api/dist/service.js";
import { DEFAULT_QUOTAS } from "@mcpsm/domain/use-cases";
import { defaultMcpSettings } from "@mcpsm/mcp-runtime";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import pino from "pino";

const CALLS = Number(process.argv[2] ?? 2000);
const WARMUP = 200;

const payload = JSON.stringify({ id: 42, name: "widget", tags: ["a", "b"], price: 9.99 });
const upstream = createServer((_req, res) => {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(payload);
});
await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamUrl = `http://127.0.0.1:${upstream.address().port}`;

const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-"));
const service = await startService(
  localConfig(dataDir, { mcp: defaultMcpSettings({ upstreamAllowedNetworks: ["127.0.0.0/8"] }) }),
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
const { server } = await api("/servers", { server: { name: "Bench", providers: [{ id: provider.id }] } });
const { token } = await api(`/servers/${server.id}/tokens`, { token: { name: "bench" } });

const connect = async (modern) => {
  const client = new Client(
    { name: "bench", version: "1" },
    modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service.url}/mcp/${server.id}`), {
      requestInit: { headers: { Authorization: `Bearer ${token.value}` } },
    }),
  );
  return client;
};
const modern = await connect(true);
const legacy = await connect(false);

const args = { pathArgs: { id: "42" }, queryArgs: { verbose: true } };
const direct = async () => {
  const response = await fetch(`${upstreamUrl}/items/42?verbose=true`, { headers: { Accept: "application/json" } });
  JSON.parse(await response.text());
};
const viaMcp = (client) => async () => {
  const result = await client.callTool({ name: "getItem", arguments: args });
  if (result.isError) throw new Error(JSON.stringify(result));
};
const subjects = { direct, mcpModern: viaMcp(modern), mcpLegacy: viaMcp(legacy) };
const samples = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));

for (let i = 0; i < WARMUP; i++) for (const run of Object.values(subjects)) await run();
for (let i = 0; i < CALLS; i++)
  for (const [name, run] of Object.entries(subjects)) {
    const started = process.hrtime.bigint();
    await run();
    samples[name].push(Number(process.hrtime.bigint() - started) / 1e6);
  }

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const f = (ms) => `${ms.toFixed(3)} ms`;
const d = { median: pct(samples.direct, 50), p99: pct(samples.direct, 99) };
console.log(
  `calls per subject: ${CALLS} (after ${WARMUP} warm-up), node ${process.version}, ${process.platform}/${process.arch}`,
);
console.log(`direct upstream GET          median ${f(d.median)}  p99 ${f(d.p99)}`);
for (const name of ["mcpModern", "mcpLegacy"]) {
  const m = { median: pct(samples[name], 50), p99: pct(samples[name], 99) };
  const label = name === "mcpModern" ? "tools/call 2026-07-28" : "tools/call 2025-11-25";
  console.log(
    `${label.padEnd(28)} median ${f(m.median)}  p99 ${f(m.p99)}  added: median ${f(m.median - d.median)}, p99 ${f(m.p99 - d.p99)}`,
  );
}

await modern.close();
await legacy.close();
await service.close();
upstream.closeAllConnections();
upstream.close();
await rm(dataDir, { recursive: true, force: true });
