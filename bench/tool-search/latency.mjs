// searchTools latency inside the process over one index of the 5,064 tools of the 18-API catalog of
// catalog.mjs: index build time and the heap it keeps, then p50/p90/p95/p99 of search().
// For comparison, the same terms, field boosts and query weights through minisearch 7.2 (the library our
// own BM25 index replaced; see docs/decisions.md).
//   node --expose-gc bench/tool-search/latency.mjs [searches]      (after `./run build`)
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FIELD_BOOSTS, SYNONYM_WEIGHT, synonymsOf, ToolIndex, terms } from "@mcpsm/tool-search";
import MiniSearch from "minisearch";
import { loadCatalog } from "./catalog.mjs";

const searches = Number(process.argv[2]?.startsWith("--") ? 20_000 : (process.argv[2] ?? 20_000));
const here = dirname(fileURLToPath(import.meta.url));
const { tasks } = JSON.parse(readFileSync(resolve(here, "tasks.json"), "utf8"));
const catalog = await loadCatalog();
const tools = catalog.map((c) => c.tool);
const TOOLS = tools.length;

const queries = [
  ...tasks.map((t) => t.task),
  "/^repos/",
  "/playlist/",
  "delete",
  "list customers",
  "getUser",
  "create_invoice",
];
const heap = () => {
  globalThis.gc?.();
  // Large typed arrays live outside the V8 heap: count them too.
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
};
const heapBefore = heap();
let t = performance.now();
// `--options {...}` builds the index with ToolIndex options (e.g. the parts switched off, to compare).
const at = process.argv.indexOf("--options");
const index = new ToolIndex(tools, at > 0 ? JSON.parse(process.argv[at + 1]) : {});
const buildMs = performance.now() - t;
const heapMb = (heap() - heapBefore) / 1024 / 1024;

const percentiles = (search, count) => {
  for (let i = 0; i < 2_000; i++) search(queries[i % queries.length]);
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const query = queries[i % queries.length];
    const started = performance.now();
    search(query);
    times[i] = performance.now() - started;
  }
  times.sort();
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(3);
  return `p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms`;
};

console.log(
  `tool-search, ${TOOLS} tools: index built in ${buildMs.toFixed(0)} ms, keeping ${globalThis.gc ? `${heapMb.toFixed(1)} MB (heap + typed arrays)` : "? MB (run with --expose-gc)"} (goal ≤ 2 s, ≤ 100 MB); ${searches} searches (limit 10, ${queries.length} queries in turn): ${percentiles((q) => index.search(q, 10), searches)} (goal: p95 ≤ 10 ms)`,
);

// minisearch over the same pre-processed fields (text queries only: regex queries do not use the index).
const METHOD_WORDS = {
  GET: "get list read",
  POST: "create add post",
  PUT: "put replace set update",
  PATCH: "patch update edit",
  DELETE: "delete remove",
};
t = performance.now();
const mini = new MiniSearch({
  fields: Object.keys(FIELD_BOOSTS),
  tokenize: (s) => s.split(" "),
  processTerm: (s) => s || null,
});
mini.addAll(
  tools.map((tool, id) => ({
    id,
    name: terms(tool.name).join(" "),
    title: terms(tool.title ?? "").join(" "),
    description: terms(tool.description ?? "").join(" "),
    method: terms(`${tool.method} ${METHOD_WORDS[tool.method] ?? ""}`).join(" "),
    path: terms(tool.path).join(" "),
    argNames: terms(tool.arguments.map((a) => a.name).join(" ")).join(" "),
    argDescriptions: "",
  })),
);
const miniBuildMs = performance.now() - t;
const miniSearch = (query) => {
  if (query.startsWith("/")) return [];
  const weights = new Map(terms(query).map((term) => [term, 1]));
  for (const term of [...weights.keys()])
    for (const s of synonymsOf(term)) if (!weights.has(s)) weights.set(s, SYNONYM_WEIGHT);
  return mini
    .search([...weights.keys()].join(" "), {
      boost: FIELD_BOOSTS,
      tokenize: (s) => s.split(" "),
      processTerm: (s) => s,
      boostTerm: (term) => weights.get(term) ?? 1,
    })
    .slice(0, 10);
};
console.log(
  `minisearch,  ${TOOLS} tools: index built in ${miniBuildMs.toFixed(0)} ms; ${searches} searches: ${percentiles(miniSearch, searches)}`,
);
