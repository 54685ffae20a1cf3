// Retrieval quality of tool search: Recall@1/@5/@10 and MRR per task kind, for @mcpsm/tool-search with its
// parts switched on in turn (ablation) and for a plain BM25 baseline, over the 18-API catalog of
// catalog.mjs, one server (one index) per API as a user would compose them.
//   node bench/tool-search/quality.mjs               dev tasks (the ones tuning may look at)
//   node bench/tool-search/quality.mjs --held-aside  the held-aside tasks (score these only at the end)
//   node bench/tool-search/quality.mjs --held-aside-2  the second held-aside set (tasks-held-aside-2.json,
//                                                      written before round two's tuning; score only at the end)
//   node bench/tool-search/quality.mjs --held-aside-3  the third held-aside set (tasks-held-aside-3.json,
//                                                      written before round three; score only at the end)
//   node bench/tool-search/quality.mjs --held-aside-4  the fourth held-aside set (tasks-held-aside-4.json,
//                                                      written before round four; score only at the end)
//   node bench/tool-search/quality.mjs --held-aside-5  the fifth held-aside set (tasks-held-aside-5.json,
//                                                      written before round six; score only at the end)
//   node bench/tool-search/quality.mjs --held-aside-6  the sixth held-aside set (tasks-held-aside-6.json,
//                                                      written before round seven; score only at the end)
//   ... --vectors <base>                             also a row with word-vector neighbours (semantic.mjs;
//                                                      measurement only, round six)
//   node bench/tool-search/quality.mjs --probe-4     probe set 4 (tasks-probe-4.json, round four): fresh tuning
//                                                      tasks for judging generic variants; no table reads them
//   node bench/tool-search/quality.mjs --all         every task of tasks.json
//   ... --misses                                     also list the full pipeline's misses at @5
// (after `./run build`; the first run maps the 18 descriptions, ≈ 45 s, then reads a cache.)
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolIndex } from "@mcpsm/tool-search";
import MiniSearch from "minisearch";
import { loadCatalog } from "./catalog.mjs";

const here = dirname(fileURLToPath(import.meta.url));
/** The task set named on the command line (`--held-aside-5`, `--probe-4`, `--all`, …); the dev tasks by default. */
const SPLITS = [
  "probe-4",
  "held-aside-6",
  "held-aside-5",
  "held-aside-4",
  "held-aside-3",
  "held-aside-2",
  "held-aside",
  "all",
];
const split = SPLITS.find((name) => process.argv.includes(`--${name}`)) ?? "dev";
const taskFile = split.startsWith("held-aside-") || split.startsWith("probe-") ? `tasks-${split}.json` : "tasks.json";
const allTasks = JSON.parse(readFileSync(resolve(here, taskFile), "utf8")).tasks;
const catalog = await loadCatalog();
const ids = new Set(catalog.map((c) => c.id));
const missing = allTasks.filter((t) => !t.expected.some((e) => ids.has(e)));
for (const t of missing) console.warn(`not in the catalog (import skipped it?): ${t.expected.join(" ; ")}`);
const tasks = allTasks.filter((t) => (split === "all" || t.split === split) && !missing.includes(t));
const byApi = new Map();
for (const c of catalog) byApi.set(c.api, [...(byApi.get(c.api) ?? []), c]);
console.log(
  `catalog: ${catalog.length} tools from ${byApi.size} APIs, one server each; ${tasks.length} ${split} tasks` +
    (missing.length > 0 ? ` (${missing.length} tasks left out: their tool is not in the catalog)` : ""),
);

/** Plain BM25 (k1 1.2, b 0.75, no BM25+ delta) over name + title + description, minisearch's default tokenizer. */
const baseline = (entries) => {
  const ms = new MiniSearch({ fields: ["name", "title", "description"] });
  ms.addAll(
    entries.map((c, i) => ({ id: i, name: c.tool.name, title: c.tool.title, description: c.tool.description })),
  );
  return (query) =>
    ms
      .search(query, { bm25: { k: 1.2, b: 0.75, d: 0 } })
      .slice(0, 10)
      .map((r) => entries[r.id].id);
};

/** `options` may be a function of the server's tools (options built per server, such as `related`). */
const ours = (options) => (entries) => {
  const tools = entries.map((c) => c.tool);
  const index = new ToolIndex(tools, typeof options === "function" ? options(tools) : options);
  const idByName = new Map(entries.map((c) => [c.tool.name, c.id]));
  return (query) => {
    const out = index.search(query, 10);
    if (!out.ok) throw new Error(out.message);
    return out.hits.map((h) => idByName.get(h.name));
  };
};

const KINDS = ["own-words", "paraphrase", "implied"];
const evaluate = (make, oneServer = false) => {
  const searchers = new Map();
  if (oneServer) {
    const search = make(catalog);
    for (const api of byApi.keys()) searchers.set(api, search);
  } else for (const [api, entries] of byApi) searchers.set(api, make(entries));
  const rows = tasks.map((t) => {
    const ranked = searchers.get(t.api)(t.task);
    const rank = ranked.findIndex((id) => t.expected.includes(id)) + 1;
    return { ...t, rank, ranked };
  });
  const summarize = (subset) => ({
    n: subset.length,
    r1: subset.filter((r) => r.rank === 1).length / subset.length,
    r5: subset.filter((r) => r.rank >= 1 && r.rank <= 5).length / subset.length,
    r10: subset.filter((r) => r.rank >= 1 && r.rank <= 10).length / subset.length,
    mrr: subset.reduce((sum, r) => sum + (r.rank > 0 ? 1 / r.rank : 0), 0) / subset.length,
  });
  const byKind = Object.fromEntries(KINDS.map((k) => [k, summarize(rows.filter((r) => r.kind === k))]));
  return { rows, overall: summarize(rows), byKind };
};

const pct = (x) => (100 * x).toFixed(1).padStart(5);
const print = (label, result, kinds = true) => {
  const line = (name, s) =>
    `| ${label.padEnd(46)} | ${name.padEnd(10)} | ${String(s.n).padStart(3)} | ${pct(s.r1)} | ${pct(s.r5)} | ${pct(s.r10)} | ${s.mrr.toFixed(3)} |`;
  console.log(line("overall", result.overall));
  if (kinds) for (const [k, s] of Object.entries(result.byKind)) console.log(line(k, s));
};

/** The pipeline's parts, switched on one after another (each row adds one part to the row above). */
const STEPS = [
  [
    "field-weighted BM25 (no intent, no synonyms)",
    { intent: false, thesaurus: false, everyday: false, phrases: false, negation: false, affixes: false },
  ],
  [
    "+ REST intent",
    { intent: true, thesaurus: false, everyday: false, phrases: false, negation: false, affixes: false },
  ],
  [
    "+ thesaurus (synonym groups)",
    { intent: true, thesaurus: true, everyday: false, phrases: false, negation: false, affixes: false },
  ],
  [
    "+ everyday words",
    { intent: true, thesaurus: true, everyday: true, phrases: false, negation: false, affixes: false },
  ],
  [
    "+ phrasal verbs",
    { intent: true, thesaurus: true, everyday: true, phrases: true, negation: false, affixes: false },
  ],
  ["+ negations, prefixes, suffixes = full", {}],
];
console.log(`| search | kind | n | R@1 | R@5 | R@10 | MRR |\n|---|---|---|---|---|---|---|`);
const base = evaluate(baseline);
print("plain BM25 (baseline)", base);
let full;
for (const [label, options] of STEPS) {
  full = evaluate(ours(options));
  print(label, full, label.endsWith("full") || process.argv.includes("--kinds"));
}
print("full, one server of all tools", evaluate(ours({}), true), false);
const vectorsAt = process.argv.indexOf("--vectors");
if (vectorsAt > 0) {
  // Round six's candidate, chosen on the tuning sets (variants.mjs): a query word no tool of the server
  // uses and no table knows is widened by its two nearest server words (cosine ≥ 0.6) at weight 0.15.
  const { loadVectors, serverNeighbours } = await import("./semantic.mjs");
  const vectors = loadVectors(process.argv[vectorsAt + 1]);
  const candidate = (tools) => ({
    related: serverNeighbours(tools, vectors, { n: 2, min: 0.6 }),
    relatedOnlyUnknown: true,
    relatedWeight: 0.15,
  });
  print("+ word-vector neighbours (candidate)", evaluate(ours(candidate)));
}
const worse = KINDS.filter((k) => full.byKind[k].r5 < base.byKind[k].r5);
console.log(
  `R@5 full ${pct(full.overall.r5)} vs baseline ${pct(base.overall.r5)}; lowest kind ${pct(Math.min(...KINDS.map((k) => full.byKind[k].r5)))}; kinds below baseline: ${worse.length === 0 ? "none" : worse.join(", ")}`,
);

if (process.argv.includes("--misses"))
  for (const r of full.rows.filter((r) => r.rank === 0 || r.rank > 5))
    console.log(
      `miss [${r.api} ${r.kind}] rank ${r.rank || ">10"}: ${r.task}\n    want ${r.expected[0]}\n    got  ${r.ranked.slice(0, 3).join(" ; ")}`,
    );

if (process.argv.includes("--tune")) {
  if (split !== "dev") throw new Error("tune on dev tasks only");
  const grid = [];
  for (const depthPenalty of [0.1, 0.15, 0.2, 0.3])
    for (const everydayWeight of [0.8]) {
      const r = evaluate(ours({ depthPenalty, everydayWeight }));
      grid.push({ depthPenalty, everydayWeight, r5: r.overall.r5, mrr: r.overall.mrr });
    }
  grid.sort((a, b) => b.r5 - a.r5 || b.mrr - a.mrr);
  for (const g of grid.slice(0, 10))
    console.log(
      `depth penalty ${g.depthPenalty} everyday ${g.everydayWeight}: R@5 ${pct(g.r5)} MRR ${g.mrr.toFixed(3)}`,
    );
}
