// Measurement only (issue 27, round six): static word vectors as a second ranking, fused with the lexical one.
// Vectors: a file pair written by a converter (`<base>.words`, one word a line, and `<base>.i8`, 100 int8
// per word); each vector is re-normalised after reading. A tool is the idf-weighted mean of its words'
// vectors (name, title, first `descChars` characters of the description, path), optionally minus the
// server's mean tool vector ("centre": the words every tool of an API shares move every tool alike).
import { readFileSync } from "node:fs";
import { stem, words } from "@mcpsm/tool-search";

const STOP = new Set(
  (
    "a an and are as at be been being but by can could do does for from has have how i if in into is it its of on " +
    "or our should so than that the their them then there these they this those to was we were what when where " +
    "which who whom will with would you your yours me my get v api openapi operation"
  ).split(" "),
);

export const loadVectors = (base, dims = 100) => {
  const list = readFileSync(`${base}.words`, "utf8").split("\n");
  const raw = new Int8Array(readFileSync(`${base}.i8`).buffer.slice(0));
  const table = new Map();
  for (const [i, w] of list.entries()) {
    const v = new Float32Array(dims);
    let n = 0;
    for (let d = 0; d < dims; d++) {
      v[d] = raw[i * dims + d];
      n += v[d] * v[d];
    }
    n = Math.sqrt(n) || 1;
    for (let d = 0; d < dims; d++) v[d] /= n;
    table.set(w, v);
  }
  return { table, dims };
};

const textOf = (tool, descChars) =>
  `${tool.name} ${tool.title ?? ""} ${(tool.description ?? "").slice(0, descChars)} ${tool.path ?? ""}`;

/** A ranker over one server's tools: query → tool indexes, best first. */
export const semanticRanker = (
  tools,
  vectors,
  { descChars = 300, centre = false, maxIdf = true, stemmed = false } = {},
) => {
  const { table, dims } = vectors;
  // A model learnt on stems (the co-occurrence one) is looked up by stem.
  const keys = (text) =>
    words(text)
      .filter((w) => !STOP.has(w))
      .map((w) => (stemmed ? stem(w) : w));
  const docs = tools.map((t) => keys(textOf(t, descChars)).filter((w) => table.has(w)));
  const df = new Map();
  for (const d of docs) for (const w of new Set(d)) df.set(w, (df.get(w) ?? 0) + 1);
  const N = docs.length;
  const idf = (w) => Math.log(1 + N / (1 + (df.get(w) ?? 0)));
  const embed = (ws, unknownIdf) => {
    const v = new Float32Array(dims);
    for (const w of ws) {
      const e = table.get(w);
      if (!e) continue;
      const weight = df.has(w) || !unknownIdf ? idf(w) : unknownIdf;
      for (let d = 0; d < dims; d++) v[d] += weight * e[d];
    }
    return v;
  };
  const norm = (v) => {
    let n = 0;
    for (let d = 0; d < dims; d++) n += v[d] * v[d];
    n = Math.sqrt(n);
    if (n > 0) for (let d = 0; d < dims; d++) v[d] /= n;
    return v;
  };
  const vecs = docs.map((d) => norm(embed(d)));
  const mean = new Float32Array(dims);
  if (centre) {
    for (const v of vecs) for (let d = 0; d < dims; d++) mean[d] += v[d] / N;
    for (const v of vecs) {
      for (let d = 0; d < dims; d++) v[d] -= mean[d];
      norm(v);
    }
  }
  const top = Math.log(1 + N);
  return (query) => {
    const qw = keys(query);
    const q = norm(embed(qw, maxIdf ? top : undefined));
    if (centre) {
      // A query is one short text, not a tool: its share of the server's mean is removed the same way.
      for (let d = 0; d < dims; d++) q[d] -= mean[d];
      norm(q);
    }
    const scores = vecs.map((v, i) => {
      let s = 0;
      for (let d = 0; d < dims; d++) s += v[d] * q[d];
      return [i, s];
    });
    return scores
      .sort((a, b) => b[1] - a[1])
      .slice(0, 50)
      .map(([i]) => i);
  };
};

/**
 * A `related` function for one server's ToolIndex: a query word's nearest words among the words the server's
 * tools use (cosine ≥ `min`, at most `n`), so an expansion term always exists in the index.
 */
export const serverNeighbours = (tools, vectors, { n = 3, min = 0.5, stemmed = false, descChars = 300 } = {}) => {
  const { table, dims } = vectors;
  const surface = new Map();
  for (const t of tools)
    for (const w of words(textOf(t, descChars))) {
      if (STOP.has(w) || w.length < 3) continue;
      const key = stemmed ? stem(w) : w;
      if (table.has(key) && !surface.has(key)) surface.set(key, w);
    }
  const keys = [...surface.keys()];
  const cache = new Map();
  return (word) => {
    const key = stemmed ? stem(word) : word;
    if (cache.has(key)) return cache.get(key);
    const q = table.get(key);
    let out = [];
    if (q) {
      const scored = [];
      for (const k of keys) {
        if (k === key) continue;
        const v = table.get(k);
        let s = 0;
        for (let d = 0; d < dims; d++) s += v[d] * q[d];
        if (s >= min) scored.push([k, s]);
      }
      out = scored
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k]) => surface.get(k));
    }
    cache.set(key, out);
    return out;
  };
};
