// R@5 / MRR of pipeline variants (ToolIndex options as JSON) on the tuning sets only: the dev tasks, held-aside
// sets 1-4 (each scored at the end of its round, then a tuning set) and probe set 4 (fresh tasks whose misses
// feed no word table). The fifth held-aside set is never scored here (quality.mjs --held-aside-5 is).
//   node bench/tool-search/variants.mjs '{"feedbackDocs":3,"feedbackWeight":0.2}' '{...}'
// The first row is always the default pipeline.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolIndex } from "@mcpsm/tool-search";
import MiniSearch from "minisearch";
import { loadCatalog } from "./catalog.mjs";
import { loadVectors, semanticRanker, serverNeighbours } from "./semantic.mjs";

const vectorFiles = new Map();
/** Word vectors read once per file (`"semantic": {"vectors": "<base path>", weight, k, ...}`). */
const vectors = (base) => {
  if (!vectorFiles.has(base)) vectorFiles.set(base, loadVectors(base));
  return vectorFiles.get(base);
};

const here = dirname(fileURLToPath(import.meta.url));
const load = (file, split) =>
  JSON.parse(readFileSync(resolve(here, file), "utf8")).tasks.filter((t) => t.split === split);
const SETS = {
  dev: load("tasks.json", "dev"),
  "set 1": load("tasks.json", "held-aside"),
  "set 2": load("tasks-held-aside-2.json", "held-aside-2"),
  "set 3": load("tasks-held-aside-3.json", "held-aside-3"),
  "probe 4": load("tasks-probe-4.json", "probe-4"),
  "set 4": load("tasks-held-aside-4.json", "held-aside-4"),
};
const catalog = await loadCatalog();
const byApi = new Map();
for (const c of catalog) byApi.set(c.api, [...(byApi.get(c.api) ?? []), c]);

/** Plain BM25 over name, title and description (quality.mjs's baseline), its best 50 ids. */
const plainBm25 = (entries) => {
  const ms = new MiniSearch({ fields: ["name", "title", "description"] });
  ms.addAll(
    entries.map((c, i) => ({ id: i, name: c.tool.name, title: c.tool.title, description: c.tool.description })),
  );
  return (q) =>
    ms
      .search(q, { bm25: { k: 1.2, b: 0.75, d: 0 } })
      .slice(0, 50)
      .map((r) => entries[r.id].id);
};

/** Weighted reciprocal-rank fusion of two rankings: 1/(k + rank), the second weighed by `weight`. */
const fuse = (a, b, { weight, k }) => {
  const scores = new Map();
  for (const [ranking, w] of [
    [a, 1],
    [b, weight],
  ])
    for (const [i, id] of ranking.entries()) scores.set(id, (scores.get(id) ?? 0) + w / (k + i + 1));
  return [...scores].sort((x, y) => y[1] - x[1]).map(([id]) => id);
};

const score = ({ fusion, semantic, neighbours, ...options }) => {
  const searchers = new Map();
  for (const [api, entries] of byApi) {
    const tools = entries.map((c) => c.tool);
    const related = neighbours ? serverNeighbours(tools, vectors(neighbours.vectors), neighbours) : undefined;
    const index = new ToolIndex(tools, related ? { ...options, related } : options);
    const idByName = new Map(entries.map((c) => [c.tool.name, c.id]));
    const plain = fusion ? plainBm25(entries) : undefined;
    const vectorRank = semantic
      ? semanticRanker(
          entries.map((c) => c.tool),
          vectors(semantic.vectors),
          semantic,
        )
      : undefined;
    searchers.set(api, (q) => {
      const out = index.search(q, fusion || semantic ? 50 : 10);
      if (!out.ok) throw new Error(out.message);
      const ours = out.hits.map((h) => idByName.get(h.name));
      if (vectorRank)
        return fuse(
          ours,
          vectorRank(q).map((i) => entries[i].id),
          semantic,
        ).slice(0, 10);
      return plain ? fuse(ours, plain(q), fusion).slice(0, 10) : ours;
    });
  }
  const cells = [];
  let all5 = 0;
  let allN = 0;
  for (const [name, tasks] of Object.entries(SETS)) {
    const kinds = { "own-words": [0, 0], paraphrase: [0, 0], implied: [0, 0] };
    let r5 = 0;
    let mrr = 0;
    for (const t of tasks) {
      const ranked = searchers.get(t.api)?.(t.task) ?? [];
      const rank = ranked.findIndex((id) => t.expected.includes(id)) + 1;
      const hit = rank >= 1 && rank <= 5;
      r5 += hit ? 1 : 0;
      mrr += rank > 0 ? 1 / rank : 0;
      kinds[t.kind][0] += hit ? 1 : 0;
      kinds[t.kind][1]++;
    }
    all5 += r5;
    allN += tasks.length;
    const k = Object.values(kinds)
      .map(([h, n]) => ((100 * h) / n).toFixed(0))
      .join("/");
    cells.push(`${name} ${((100 * r5) / tasks.length).toFixed(1)} (${k}) mrr ${(mrr / tasks.length).toFixed(3)}`);
  }
  return `all ${((100 * all5) / allN).toFixed(1)} | ${cells.join(" | ")}`;
};

// `"wordnet": {senses, symbols}` in a variant becomes the `related` option; `"fusion": {weight, k}` fuses the
// ranking with plain BM25's by weighted reciprocal rank. Word vectors (semantic.mjs, round six):
// `"semantic": {vectors, weight, k, centre, descChars, stemmed}` fuses with a mean-vector ranking the same way;
// `"neighbours": {vectors, n, min, stemmed}` becomes a per-server `related` (nearest words the server uses).
// wordnet.mjs reads an unpacked WordNet at load time, so it is loaded only when a variant asks for it.
const optionsOf = async (arg) => {
  const { wordnet, ...options } = JSON.parse(arg);
  if (!wordnet) return options;
  const { wordnetRelated } = await import("./wordnet.mjs");
  return { ...options, related: wordnetRelated(wordnet) };
};
for (const arg of ["{}", ...process.argv.slice(2)]) console.log(`${arg.padEnd(48)} ${score(await optionsOf(arg))}`);
