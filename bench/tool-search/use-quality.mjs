// Round seven (issue 27): the Universal Sentence Encoder lite as a second ranking, measured against and fused
// with the lexical pipeline (weighted reciprocal rank, as round six fused word vectors). Per task set and kind:
// R@1 / R@5 / R@10 / MRR of lexical alone, USE alone and fused. Vectors come from use-vectors.mjs's cache.
//   node bench/tool-search/use-quality.mjs --tune                 grid of weight × k on dev + probe 4 only
//   node bench/tool-search/use-quality.mjs [--sets dev,probe-4,...] [--weight 0.5 --k 10] [--variant full|short|title] [--centre]
// Set names: dev, held-aside (set 1), held-aside-2..6, probe-4. held-aside-6 only when named (score it once).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolIndex } from "@mcpsm/tool-search";
import { loadCatalog } from "./catalog.mjs";
import { cosine, toolText, vectorsOf } from "./use-vectors.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const FILES = {
  dev: "tasks.json",
  "held-aside": "tasks.json",
  "held-aside-2": "tasks-held-aside-2.json",
  "held-aside-3": "tasks-held-aside-3.json",
  "probe-4": "tasks-probe-4.json",
  "held-aside-4": "tasks-held-aside-4.json",
  "held-aside-5": "tasks-held-aside-5.json",
  "held-aside-6": "tasks-held-aside-6.json",
};
const tune = process.argv.includes("--tune");
const setNames = arg("sets", tune ? "dev,probe-4" : "dev,probe-4").split(",");
const sets = Object.fromEntries(
  setNames.map((s) => [
    s,
    JSON.parse(readFileSync(resolve(here, FILES[s]), "utf8")).tasks.filter((t) => t.split === s),
  ]),
);
const variant = arg("variant", "full");
const centre = process.argv.includes("--centre");

const catalog = await loadCatalog();
const byApi = new Map();
for (const c of catalog) byApi.set(c.api, [...(byApi.get(c.api) ?? []), c]);
const allTasks = Object.values(sets).flat();
const vectors = await vectorsOf([...catalog.map((c) => toolText(c.tool, variant)), ...allTasks.map((t) => t.task)], {
  log: true,
});

/** Per API: the lexical ranker (best 50 ids) and the USE ranker (every id, by cosine). */
const rankers = new Map();
for (const [api, entries] of byApi) {
  const index = new ToolIndex(entries.map((c) => c.tool));
  const idByName = new Map(entries.map((c) => [c.tool.name, c.id]));
  const toolVectors = entries.map((c) => Float32Array.from(vectors.get(toolText(c.tool, variant))));
  const mean = new Float32Array(512);
  if (centre) {
    for (const v of toolVectors) for (let d = 0; d < 512; d++) mean[d] += v[d] / toolVectors.length;
    // Renormalised: without it the shared part would shift every cosine alike and change no ranking.
    for (const v of toolVectors) {
      let n = 0;
      for (let d = 0; d < 512; d++) {
        v[d] -= mean[d];
        n += v[d] * v[d];
      }
      for (let d = 0; d < 512; d++) v[d] /= Math.sqrt(n) || 1;
    }
  }
  const lexical = (q) => {
    const out = index.search(q, 50);
    if (!out.ok) throw new Error(out.message);
    return out.hits.map((h) => idByName.get(h.name));
  };
  const semantic = (q) => {
    const qv = vectors.get(q);
    return toolVectors
      .map((v, i) => [entries[i].id, cosine(v, qv)])
      .sort((a, b) => b[1] - a[1])
      .map(([id]) => id);
  };
  rankers.set(api, { lexical, semantic });
}

/** Weighted reciprocal-rank fusion: lexical at 1, USE at `weight`, each over its best 50. */
const fuse = (a, b, weight, k) => {
  const scores = new Map();
  for (const [ranking, w] of [
    [a, 1],
    [b.slice(0, 50), weight],
  ])
    for (const [i, id] of ranking.entries()) scores.set(id, (scores.get(id) ?? 0) + w / (k + i + 1));
  return [...scores].sort((x, y) => y[1] - x[1]).map(([id]) => id);
};

const rankings = new Map(); // task text + api → { lexical, semantic }
for (const t of allTasks) {
  const key = `${t.api}\n${t.task}`;
  if (!rankings.has(key)) {
    const r = rankers.get(t.api);
    rankings.set(key, { lexical: r.lexical(t.task), semantic: r.semantic(t.task) });
  }
}
const rankOf = (t, mode, weight, k) => {
  const { lexical, semantic } = rankings.get(`${t.api}\n${t.task}`);
  const ranked = mode === "lexical" ? lexical : mode === "use" ? semantic : fuse(lexical, semantic, weight, k);
  return ranked.slice(0, 10).findIndex((id) => t.expected.includes(id)) + 1;
};
const summary = (tasks, mode, weight, k) => {
  const ranks = tasks.map((t) => rankOf(t, mode, weight, k));
  const share = (f) => (100 * ranks.filter(f).length) / ranks.length;
  return {
    n: ranks.length,
    r1: share((r) => r === 1),
    r5: share((r) => r >= 1 && r <= 5),
    r10: share((r) => r >= 1),
    mrr: ranks.reduce((s, r) => s + (r > 0 ? 1 / r : 0), 0) / ranks.length,
  };
};
const cell = (s) => `${s.r1.toFixed(1)} / ${s.r5.toFixed(1)} / ${s.r10.toFixed(1)} / ${s.mrr.toFixed(3)}`;

if (tune) {
  const grid = [];
  for (const weight of [0.2, 0.35, 0.5, 0.75, 1, 1.5])
    for (const k of [2, 5, 10, 20, 60]) {
      const per = Object.values(sets).map((tasks) => summary(tasks, "fused", weight, k));
      const n = per.reduce((s, p) => s + p.n, 0);
      const r5 = per.reduce((s, p) => s + (p.r5 * p.n) / n, 0);
      const mrr = per.reduce((s, p) => s + (p.mrr * p.n) / n, 0);
      grid.push({ weight, k, r5, mrr, per });
    }
  const base = Object.values(sets).map((tasks) => summary(tasks, "lexical"));
  console.log(`lexical: ${base.map((p) => p.r5.toFixed(1)).join(" | ")}`);
  grid.sort((a, b) => b.r5 - a.r5 || b.mrr - a.mrr);
  for (const g of grid.slice(0, 12))
    console.log(
      `w ${g.weight} k ${g.k}: R@5 ${g.r5.toFixed(1)} MRR ${g.mrr.toFixed(3)} | ${g.per.map((p) => p.r5.toFixed(1)).join(" | ")}`,
    );
} else {
  const weight = Number(arg("weight", "0.5"));
  const k = Number(arg("k", "10"));
  console.log(`variant ${variant}${centre ? ", centred" : ""}; fused: w ${weight} k ${k}`);
  console.log("| set | kind | n | lexical R@1/R@5/R@10/MRR | USE | fused |\n|---|---|---|---|---|---|");
  for (const [name, tasks] of Object.entries(sets))
    for (const kind of ["overall", "own-words", "paraphrase", "implied"]) {
      const subset = kind === "overall" ? tasks : tasks.filter((t) => t.kind === kind);
      const row = ["lexical", "use", "fused"].map((m) => cell(summary(subset, m, weight, k)));
      console.log(`| ${name} | ${kind} | ${subset.length} | ${row.join(" | ")} |`);
    }
}
