// Retrieval quality of tool search on real API descriptions: Recall@1/@5/@10 and MRR, overall and by task
// kind, for @mcpsm/tool-search and for a plain BM25 baseline over name + summary + description.
//   node bench/tool-search/quality.mjs            (after `pnpm run build`; needs ../shared/tool-catalog)
//   node bench/tool-search/quality.mjs --tune     (also prints the field-weight grid used to choose them)
//   node bench/tool-search/quality.mjs --misses   (also lists the tasks our search misses at @5)
// "no thesaurus" is our search with synonym expansion off (an ablation).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolIndex, terms } from "@mcpsm/tool-search";
import MiniSearch from "minisearch";
import { loadCatalog } from "./catalog.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const { tasks } = JSON.parse(readFileSync(resolve(here, "tasks.json"), "utf8"));
const catalog = loadCatalog();
const idByName = new Map(catalog.map((c) => [c.tool.name, c.id]));
const ids = new Set(catalog.map((c) => c.id));
for (const t of tasks) for (const e of t.expected) if (!ids.has(e)) throw new Error(`unknown expected id ${e}`);

// Kind check: a paraphrase shares no content word (after stemming) with the expected operations' name or summary.
for (const t of tasks.filter((t) => t.kind === "paraphrase")) {
  const own = new Set(terms(t.task));
  for (const e of t.expected) {
    const c = catalog.find((c) => c.id === e);
    const shared = terms(`${c.tool.name} ${c.summary}`).filter((w) => own.has(w));
    if (shared.length > 0) console.warn(`paraphrase shares ${shared.join(",")} with ${e}: ${t.task}`);
  }
}

const apis = new Set(catalog.map((c) => c.api));
console.log(`catalog: ${catalog.length} tools from ${apis.size} APIs (${[...apis].join(", ")}); ${tasks.length} tasks`);

/** Plain BM25 (k1 1.2, b 0.75, no BM25+ delta) over name + summary + description, minisearch's default tokenizer. */
const baseline = () => {
  const ms = new MiniSearch({
    fields: ["name", "summary", "description"],
    searchOptions: { bm25: { k: 1.2, b: 0.75, d: 0 } },
  });
  ms.addAll(catalog.map((c, i) => ({ id: i, name: c.tool.name, summary: c.summary, description: c.description })));
  return (query) =>
    ms
      .search(query, { bm25: { k: 1.2, b: 0.75, d: 0 } })
      .slice(0, 10)
      .map((r) => catalog[r.id].id);
};

const ours = (options) => {
  const index = new ToolIndex(
    catalog.map((c) => c.tool),
    options,
  );
  return (query) => {
    const out = index.search(query, 10);
    if (!out.ok) throw new Error(out.message);
    return out.hits.map((h) => idByName.get(h.name));
  };
};

const evaluate = (search) => {
  const rows = tasks.map((t) => {
    const ranked = search(t.task);
    const rank = ranked.findIndex((id) => t.expected.includes(id)) + 1;
    return { kind: t.kind, task: t.task, rank, ranked };
  });
  const summarize = (subset) => ({
    n: subset.length,
    r1: subset.filter((r) => r.rank === 1).length / subset.length,
    r5: subset.filter((r) => r.rank >= 1 && r.rank <= 5).length / subset.length,
    r10: subset.filter((r) => r.rank >= 1 && r.rank <= 10).length / subset.length,
    mrr: subset.reduce((sum, r) => sum + (r.rank > 0 ? 1 / r.rank : 0), 0) / subset.length,
  });
  const byKind = {};
  for (const kind of ["lexical", "paraphrase", "implied"])
    byKind[kind] = summarize(rows.filter((r) => r.kind === kind));
  return { rows, overall: summarize(rows), byKind };
};

const pct = (x) => (100 * x).toFixed(1).padStart(5);
const table = (label, result) => {
  const line = (name, s) =>
    `| ${label.padEnd(12)} | ${name.padEnd(10)} | ${String(s.n).padStart(3)} | ${pct(s.r1)} | ${pct(s.r5)} | ${pct(s.r10)} | ${s.mrr.toFixed(3)} |`;
  return [line("overall", result.overall), ...Object.entries(result.byKind).map(([k, s]) => line(k, s))].join("\n");
};

const base = evaluate(baseline());
const mine = evaluate(ours());
const noThesaurus = evaluate(ours({ synonymWeight: 0 }));
console.log("| search       | kind       |   n |  R@1  |  R@5  | R@10  |  MRR  |");
console.log("|---|---|---|---|---|---|---|");
console.log(table("tool-search", mine));
console.log(table("no thesaurus", noThesaurus));
console.log(table("BM25 base", base));
const gain = 100 * (mine.overall.r5 - base.overall.r5);
const worse = Object.keys(mine.byKind).filter((k) => mine.byKind[k].r5 < base.byKind[k].r5);
console.log(
  `Recall@5 gain over baseline: ${gain.toFixed(1)} points (goal ≥ 10); kinds below baseline: ${worse.length === 0 ? "none" : worse.join(", ")}`,
);

if (process.argv.includes("--misses"))
  for (const r of mine.rows.filter((r) => r.rank === 0 || r.rank > 5))
    console.log(`miss [${r.kind}] rank ${r.rank || ">10"}: ${r.task}\n    got ${r.ranked.slice(0, 3).join(" ; ")}`);

if (process.argv.includes("--tune")) {
  console.log("\nfield-weight grid (R@5 / MRR overall):");
  const grid = [];
  for (const name of [1, 2, 3])
    for (const title of [1, 2, 3])
      for (const path of [0.5, 1, 1.5])
        for (const argNames of [0, 0.5])
          for (const synonymWeight of [0.2, 0.35, 0.5, 0.7]) {
            const r = evaluate(ours({ boosts: { name, title, path, argNames }, synonymWeight })).overall;
            grid.push({ name, title, path, argNames, synonymWeight, r5: r.r5, mrr: r.mrr });
          }
  grid.sort((a, b) => b.r5 - a.r5 || b.mrr - a.mrr);
  for (const g of grid.slice(0, 12))
    console.log(
      `name ${g.name} title ${g.title} path ${g.path} argNames ${g.argNames} synonyms ${g.synonymWeight}: ${pct(g.r5)} / ${g.mrr.toFixed(3)}`,
    );
}
