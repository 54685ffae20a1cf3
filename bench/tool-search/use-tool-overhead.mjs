// What running a tool through useTool (dynamic tool discovery, docs/api-rules.md §14) costs over calling it
// directly with tools/call, same server, same client, same run (the mcp-latency.mjs pattern).
//
//   ./run build && node bench/tool-search/use-tool-overhead.mjs [calls=2000]
//
// 1. In process: discoveryToolCall(compiled, "useTool", …) — the only step useTool adds before the very
//    function tools/call runs — timed over many calls (its argument check and the tool lookup).
// 2. End to end: a local upstream and the real service (apps/api, in-memory store, dev auth); a server with
//    discovery on and one GET tool; rounds alternate tools/call getItem and tools/call useTool {getItem}
//    (bench/lib/local-service.mjs).
//    Prints the median and p90 of each and the difference (loopback HTTP: expect noise of tens of µs).
import { discoveryToolCall } from "@mcpsm/mcp-runtime";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  addItemProvider,
  percentile,
  startItemUpstream,
  startLocalService,
  timeRounds,
} from "../lib/local-service.mjs";

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
const upstream = await startItemUpstream();
const service = await startLocalService();
const { api } = service;
const provider = await addItemProvider(api, upstream.url);
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
const samples = await timeRounds(subjects, CALLS, WARMUP);
const pct = percentile;
const f = (ms) => `${ms.toFixed(3)} ms`;
const line = (name) => `median ${f(pct(samples[name], 50))}  p90 ${f(pct(samples[name], 90))}`;
console.log(`end to end, ${CALLS} calls each (after ${WARMUP} warm-up), node ${process.version}`);
console.log(`tools/call getItem            ${line("direct")}`);
console.log(
  `tools/call useTool {getItem}  ${line("useTool")}  added: median ${f(pct(samples.useTool, 50) - pct(samples.direct, 50))}, p90 ${f(pct(samples.useTool, 90) - pct(samples.direct, 90))} (goal ≤ 0.1 ms)`,
);
await client.close();
await service.close();
upstream.close();
