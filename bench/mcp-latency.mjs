// Added latency of an MCP tools/call over calling the upstream directly, same machine, same run.
//
//   ./run build && node bench/mcp-latency.mjs [calls=2000]
//
// Starts a local upstream (node:http, 127.0.0.1) and the real service (bench/lib/local-service.mjs),
// composes a server with one GET tool through the management API, then times, one call at a time:
//   direct  — GET to the upstream with undici's fetch (keep-alive), as a client without MCP would;
//   mcp     — tools/call of the same request through /mcp/{serverId} with the SDK client, per era.
// Rounds alternate (direct, modern, legacy) so drift hits all three alike. Prints median and p99 of each
// and the added latency (mcp minus direct) at those percentiles.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { addItemProvider, percentile, startItemUpstream, startLocalService, timeRounds } from "./lib/local-service.mjs";

const CALLS = Number(process.argv[2] ?? 2000);
const WARMUP = 200;

const upstream = await startItemUpstream();
const upstreamUrl = upstream.url;
const service = await startLocalService();
const { api } = service;
const provider = await addItemProvider(api, upstreamUrl);
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
const samples = await timeRounds(subjects, CALLS, WARMUP);
const pct = percentile;
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
upstream.close();
