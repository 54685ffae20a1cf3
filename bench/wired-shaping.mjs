// Response shaping as a tools/call runs it (issue 28's first goal, docs/api-rules.md §19): what the call path
// does with an upstream's 2xx answer, timed in-process on the built runtime, with shaping and without.
//   ./run build && node bench/wired-shaping.mjs [rounds=400]
//
// "Without" is what the call path did before shaping: `toolResultOf` (text and structuredContent of the
// answer) then the outputSchema check. "With" is what `callTool` runs now: `shapedToolResult` (parse, the
// tool's response filter, the token count and, over the server's maxResultTokens, the cut at JSON
// boundaries, observed by the service's Prometheus histogram) then the same check. Both run in alternation
// on the same UpstreamResponse objects, timed as CPU time of the process in blocks of runs; the p50 of each
// and of their difference per answer size are printed,
// for a tool without a filter (the common case) and one with a one-line JMESPath filter.
import { createRequire } from "node:module";
import { toolResultOf } from "../packages/mcp-runtime/dist/calls/tool-result.js";
import { checkedAnswer } from "../packages/mcp-runtime/dist/tool-output/answer-check.js";
import { shapedToolResult } from "../packages/mcp-runtime/dist/tool-output/shape-answer.js";

// The service's own prom-client (a dependency of apps/api, not of the bench).
const { Histogram, Registry } = createRequire(new URL("../apps/api/package.json", import.meta.url))("prom-client");
const ROUNDS = Number(process.argv[2] ?? 400);
const LIMITS = { timeoutMs: 30_000, maxResponseBytes: 10 * 1024 * 1024 };
const MAX_RESULT_TOKENS = 25_000;

// The service's histogram (apps/api/src/operations/metrics.ts), so observing costs what it costs there.
const histogram = new Histogram({
  name: "mcpsm_tool_result_tokens",
  help: "bench",
  labelNames: ["stage"],
  buckets: [100, 500, 1000, 2500, 5000, 10_000, 25_000, 50_000, 100_000, 200_000],
  registers: [new Registry()],
});
const instrumentation = {
  operation: (_o, run) => run((_e, r) => r([])),
  resultTokens: (before, after) => {
    histogram.observe({ stage: "before" }, before);
    histogram.observe({ stage: "after" }, after);
  },
  filterFailure: () => {},
};
const services = { log: { warn: () => {}, error: () => {}, info: () => {} }, instrumentation };

const record = (i) => ({
  id: `cus_${i.toString(36)}`,
  object: "customer",
  email: `user${i}@example.com`,
  name: `Customer ${i}`,
  created: 1700000000 + i,
  livemode: false,
  metadata: { plan: "pro", seats: i % 17 },
  address: { city: "Berlin", country: "DE", line1: `${i} Main Street`, postal_code: "10115" },
});
const answerOf = (bytes) => {
  if (bytes < 200) return { id: 42, name: "widget", tags: ["a", "b"], price: 9.99 };
  const data = [];
  while (JSON.stringify(data).length < bytes) data.push(record(data.length));
  return { object: "list", data, has_more: true, url: "/v1/customers" };
};
const responseOf = (value) => ({
  status: 200,
  statusText: "OK",
  contentType: "application/json",
  body: Buffer.from(JSON.stringify(value)),
  truncated: false,
  url: new URL("http://upstream.test/v1/customers"),
});

const NOW = new Date("2026-01-01T00:00:00Z");
const toolRow = (responseFilter) => ({
  id: "tool_bench",
  providerId: "prov_bench",
  createdAt: NOW,
  updatedAt: NOW,
  method: "GET",
  path: "/v1/customers",
  name: "listCustomers",
  title: "List customers",
  description: "Lists customers.",
  pathArgsJSONSchema: null,
  queryArgsJSONSchema: {
    type: "object",
    properties: { limit: { type: "integer" }, starting_after: { type: "string" } },
  },
  reqBodyJSONSchema: null,
  respBodyJSONSchema: null,
  outputSchemaMode: "LENIENT",
  headers: [],
  oauth2Scopes: [],
  responseFilter,
});

const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// CPU time of this process (user + system), not wall time: other jobs on a shared machine stretch the
// latter but barely the former. Each sample is a block of `block` runs (cpuUsage counts microseconds).
const cpuMsOf = async (block, run) => {
  const start = process.cpuUsage();
  for (let i = 0; i < block; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / block;
};

const sizes = [
  ["56 B (bench/hot-paths' upstream)", 56],
  ["10 KB", 10 * 1024],
  ["100 KB", 100 * 1024],
  ["1 MB", 1024 * 1024],
];
const tools = [
  ["no filter", toolRow(null)],
  ["JMESPath data[].{id, email}", toolRow({ language: "jmespath", expression: "data[].{id: id, email: email}" })],
];
const rows = [];
for (const [size, bytes] of sizes) {
  const response = responseOf(answerOf(bytes));
  for (const [kind, tool] of tools) {
    if (bytes < 200 && tool.responseFilter !== null) continue;
    // Blocks of runs, the two variants in alternation; about ROUNDS runs of each (fewer at 1 MB).
    const block = bytes >= 1024 * 1024 ? 2 : bytes >= 100 * 1024 ? 5 : 50;
    const blocks = Math.max(10, Math.floor((bytes >= 1024 * 1024 ? ROUNDS / 10 : ROUNDS) / block));
    const without = async () => checkedAnswer(tool, toolResultOf(response, LIMITS), services);
    const shaped = async () =>
      checkedAnswer(tool, await shapedToolResult(tool, response, LIMITS, MAX_RESULT_TOKENS, instrumentation), services);
    const before = [];
    const after = [];
    const added = [];
    for (let i = 0; i < blocks + 2; i++) {
      const a = await cpuMsOf(block, without);
      const b = await cpuMsOf(block, shaped);
      if (i < 2) continue; // warm-up
      before.push(a);
      after.push(b);
      added.push(b - a);
    }
    const rounds = blocks * block;
    const row = {
      size,
      bytes: response.body.length,
      kind,
      rounds,
      before: p50(before),
      after: p50(after),
      added: p50(added),
    };
    rows.push(row);
    console.error(
      `${size.padEnd(34)} ${kind.padEnd(28)} CPU ms per call: without ${row.before.toFixed(3)}  with ${row.after.toFixed(3)}  added (p50 of blocks) ${row.added.toFixed(3)}`,
    );
  }
}
console.log(JSON.stringify({ rows }));
