// Sentence vectors of tool texts and task texts by the Universal Sentence Encoder lite (use-model.mjs, on the wasm backend: the pure JavaScript one takes ~0.7 s a text), kept
// in a cache file in the OS temp folder keyed by text (one model, so the text is the whole key): the 5,378
// tools take minutes on the CPU backend, and every fusion variant reuses them. Measurement only (round seven).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { oneLine, words } from "@mcpsm/tool-search";
import { loadUse } from "./use-model.mjs";

const CACHE = join(tmpdir(), "mcpsm-use-lite-vectors.json");
const DIMS = 512;

/** What a tool is, as text for the encoder (`variant` picks which fields; see decisions.md, round seven). */
export const toolText = (tool, variant = "full") => {
  const name = words(tool.name).join(" ");
  const title = tool.title || name;
  const path = words(tool.path).join(" ");
  if (variant === "short") return `${title}. ${oneLine(tool.description ?? "")}`;
  if (variant === "title") return `${title}`;
  const description = (tool.description ?? "").replace(/\s+/g, " ").slice(0, 300);
  return `${name}. ${title}. ${description} ${tool.method} ${path}`;
};

const readCache = () => {
  const out = new Map();
  if (!existsSync(CACHE)) return out;
  for (const [text, b64] of Object.entries(JSON.parse(readFileSync(CACHE, "utf8"))))
    out.set(text, new Float32Array(new Uint8Array(Buffer.from(b64, "base64")).buffer));
  return out;
};
const writeCache = (cache) => {
  const out = {};
  for (const [text, v] of cache) out[text] = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
  writeFileSync(CACHE, JSON.stringify(out));
};

/** text → unit vector for every text, embedding (in batches) only those the cache lacks. */
export const vectorsOf = async (texts, { batch = 4, log = false } = {}) => {
  const cache = readCache();
  const todo = [...new Set(texts)].filter((t) => !cache.has(t));
  if (todo.length > 0) {
    const model = await loadUse({ backend: "wasm" });
    const started = performance.now();
    for (let i = 0; i < todo.length; i += batch) {
      const chunk = todo.slice(i, i + batch);
      const vectors = await model.embed(chunk);
      for (const [j, text] of chunk.entries()) cache.set(text, vectors[j]);
      if (log && i % (batch * 20) === 0)
        console.error(
          `embedded ${i + chunk.length}/${todo.length} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
        );
    }
    writeCache(cache);
  }
  return new Map(texts.map((t) => [t, cache.get(t)]));
};

export const cosine = (a, b) => {
  let s = 0;
  for (let d = 0; d < DIMS; d++) s += a[d] * b[d];
  return s;
};
