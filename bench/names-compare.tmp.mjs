import { readFileSync } from "node:fs";
import * as I from "@mcpsm/domain/openapi-import";
const listed = new Set(Object.values(I.TOOL_NAME_ABBREVIATIONS));
const read = (f) => readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => l.split("\t"));
const readable = (name, vocab, method) => { const known = new Set([...vocab.split(" "), method.toLowerCase(), "by", "op"]); return I.wordsOf(name).every((w) => known.has(w) || listed.has(w) || /^\d+$/.test(w)); };
for (const f of process.argv.slice(2)) {
  const rows = read(f); const ok = rows.filter((r) => readable(r[4], r[5], r[1])).length;
  console.log(f, `${ok} of ${rows.length} = ${(100 * ok / rows.length).toFixed(2)}%`);
}
if (process.argv.length === 4) {
  const before = new Map(read(process.argv[2]).map((r) => [`${r[0]} ${r[1]} ${r[2]} ${r[3]}`, r]));
  const pairs = [];
  for (const r of read(process.argv[3])) { const b = before.get(`${r[0]} ${r[1]} ${r[2]} ${r[3]}`); if (b && b[4] !== r[4]) pairs.push([r[0], r[3], b[4], r[4]]); }
  // 30 pairs spread over the directory: every n-th changed name.
  const step = Math.floor(pairs.length / 30);
  for (let i = 0; i < 30; i++) { const p = pairs[i * step]; console.log(`${p[0]} | ${p[1]} | ${p[2]} → ${p[3]}`); }
  console.log("changed names:", pairs.length);
}
