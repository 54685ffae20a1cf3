// Every row of issue 15 with its goal, from one side-by-side run: the shared harness's results.json and,
// when given, the c=1 and soak results of `bench/hot-paths.mjs` (its output, whose last JSON line is read). Printed as a
// Markdown table; a row whose input is missing says so instead of guessing.
//
//   node bench/lib/issue-rows.mjs <results.json> [c1.json] [soak.json]
import { readFileSync } from "node:fs";

const [resultsPath, c1Path, soakPath] = process.argv.slice(2);
if (resultsPath === undefined) {
  console.error("usage: node bench/lib/issue-rows.mjs <results.json> [c1.json] [soak.json]");
  process.exit(2);
}

const readJson = (path) => {
  if (path === undefined) return undefined;
  try {
    // hot-paths.mjs prints its summary as its last line of JSON (the service's own lines may follow it).
    const lines = readFileSync(path, "utf8").trim().split("\n");
    return JSON.parse(lines.findLast((line) => line.startsWith("{")) ?? "");
  } catch {
    return undefined;
  }
};

const results = JSON.parse(readFileSync(resultsPath, "utf8"));
const c1 = readJson(c1Path);
const soak = readJson(soakPath)?.soak;
const runs = results.runs ?? [];
const run = (group, label, c) => runs.find((r) => r.group === group && r.label === label && r.connections === c);
const listing = (size, page, filtered) =>
  runs.find(
    (r) =>
      r.group === "GET /providers?limit=50" &&
      r.size === size &&
      r.page === page &&
      /nameContains/.test(r.label) === filtered,
  );
const rss = (what, name) => results.rss?.find((r) => r.what === what)?.[name];

const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : "—");
const MiB_PER_MB = 1e6 / 2 ** 20;
const rows = [];
/** One row: `values` per connection count (or one value), the goal's test on each. */
const row = (name, values, goal, ok) => {
  const present = values.filter((v) => Number.isFinite(v.x));
  const met = present.length === 0 ? "no data" : present.every((v) => ok(v.x)) ? "yes" : "no";
  rows.push(`| ${name} | ${values.map((v) => `${v.at}: ${fmt(v.x)}${v.unit ?? "×"}`).join("; ")} | ${goal} | ${met} |`);
};
const conns = results.conns ?? [16, 64];
const ratio = (group, a, b, c) => (run(group, a, c)?.rps ?? Number.NaN) / (run(group, b, c)?.rps ?? Number.NaN);

row(
  "GET /servers/{id}, PostgreSQL, vs bare Koa + JWT",
  conns.map((c) => ({
    at: `c=${c}`,
    x: ratio("GET /servers/{id}", "service, PostgreSQL", "bare Koa 3, same bytes + jose ES256 verify", c),
  })),
  "≥ 0.5×",
  (x) => x >= 0.5,
);
row(
  "same, embedded vs PostgreSQL",
  conns.map((c) => ({
    at: `c=${c}`,
    x: ratio("GET /servers/{id}", "service, PGlite (embedded)", "service, PostgreSQL", c),
  })),
  "≥ 0.7×",
  (x) => x >= 0.7,
);
const peer = "peer openapi-mcp-generator 4.0.1 (stateful session)";
row(
  "MCP tools/call vs the generated peer",
  conns.map((c) => ({ at: `c=${c}`, x: ratio("MCP tools/call", "service /mcp, PostgreSQL, 2026-07-28", peer, c) })),
  "≥ 2×",
  (x) => x >= 2,
);
row(
  "MCP tools/list (50 tools) vs the peer",
  conns.map((c) => ({
    at: `c=${c}`,
    x: ratio(
      "MCP tools/list (50 tools)",
      "service /mcp, PostgreSQL, 2026-07-28",
      "peer openapi-mcp-generator 4.0.1",
      c,
    ),
  })),
  "≥ 1×",
  (x) => x >= 1,
);
row(
  "tools/call added median latency over the upstream, c=1",
  [{ at: "c=1", x: c1?.addedMedianMs ?? Number.NaN, unit: " ms" }],
  "≤ 1 ms",
  (x) => x <= 1,
);
row(
  "POST /servers (5×10), PostgreSQL",
  conns.map((c) => ({
    at: `c=${c}`,
    x: run("POST /servers (5x10)", "service, PostgreSQL", c)?.rps ?? Number.NaN,
    unit: " req/s",
  })),
  "≥ 300 req/s",
  (x) => x >= 300,
);
const p50 = (r) => r?.p50 ?? Number.NaN;
const sizes = [...new Set(runs.filter((r) => r.size !== undefined).map((r) => r.size))].sort((a, b) => a - b);
const [small, large] = [sizes[0], sizes.at(-1)];
row(
  `GET /providers p50, ${large ?? "most"} vs ${small ?? "fewest"} providers`,
  [
    { at: "first page", x: p50(listing(large, 1, false)) / p50(listing(small, 1, false)) },
    { at: "page 21", x: p50(listing(large, 21, false)) / p50(listing(small, 1, false)) },
  ],
  "≤ 1.5×",
  (x) => x <= 1.5,
);
row(
  "same with nameContains (10% match)",
  [{ at: "first page", x: p50(listing(large, 1, true)) / p50(listing(small, 1, false)) }],
  "≤ 3×",
  (x) => x <= 3,
);
const last = results.rss?.at(-1);
row(
  `RSS at the end of the run, PostgreSQL service (${last?.what ?? "—"})`,
  [{ at: "MiB", x: last?.["service-pg"] ?? Number.NaN, unit: " MiB" }],
  "≤ 300 MB (286.1 MiB)",
  (x) => x <= 300 * MiB_PER_MB,
);
row(
  `soak at 80% of peak, first → last minute${soak ? ` (${soak.minutes.length} min, ${fmt(soak.achievedRps, 0)} req/s)` : ""}`,
  [{ at: "growth", x: soak?.growthMeanPct ?? Number.NaN, unit: "%" }],
  "≤ +5%",
  (x) => x <= 5,
);
row(
  "RSS idle, embedded PGlite (fresh data directory)",
  [{ at: "MiB", x: rss("idle after start", "service-pglite") ?? Number.NaN, unit: " MiB" }],
  "≤ 250 MB (238.4 MiB)",
  (x) => x <= 250 * MiB_PER_MB,
);

console.log(`## Issue 15, every row (${results.projectCommit ?? results.project ?? ""})\n`);
console.log("| row | measured | goal | met |");
console.log("|---|---|---|---|");
for (const r of rows) console.log(r);
