// Round seven (issue 27): what the Universal Sentence Encoder lite costs in one process: model load time and
// the RSS it adds, ms per tool text (batched and one at a time), ms per query (p50/p95, one at a time, as a
// search would embed it). Run alone: the numbers are CPU time on a shared machine.
//   node --expose-gc bench/tool-search/use-cost.mjs [--backend cpu|wasm] [tools] [queries]
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadCatalog } from "./catalog.mjs";
import { loadUse } from "./use-model.mjs";
import { toolText } from "./use-vectors.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const at = process.argv.indexOf("--backend");
const backend = at > 0 ? process.argv[at + 1] : "cpu";
const numbers = process.argv.slice(2).filter((a, i, all) => /^\d+$/.test(a) && all[i - 1] !== "--backend");
const toolCount = Number(numbers[0] ?? 160);
const queryCount = Number(numbers[1] ?? 200);

const catalog = await loadCatalog();
const tasks = JSON.parse(readFileSync(resolve(here, "tasks.json"), "utf8")).tasks;
globalThis.gc?.();
const rssBefore = process.memoryUsage().rss;
const model = await loadUse({ backend });
globalThis.gc?.();
const rssLoaded = process.memoryUsage().rss;
console.log(
  `backend ${model.backend}: load ${model.loadMs.toFixed(0)} ms, RSS +${((rssLoaded - rssBefore) / 2 ** 20).toFixed(0)} MiB (${(rssLoaded / 2 ** 20).toFixed(0)} MiB in all)`,
);
// Spread over the catalog so every API's text lengths are in the sample.
const step = Math.max(1, Math.floor(catalog.length / toolCount));
const texts = catalog
  .filter((_, i) => i % step === 0)
  .slice(0, toolCount)
  .map((c) => toolText(c.tool));
await model.embed(texts.slice(0, 4)); // warm-up: kernels and the graph's first run
for (const batch of [16, 1]) {
  const started = performance.now();
  for (let i = 0; i < texts.length; i += batch) await model.embed(texts.slice(i, i + batch));
  const ms = (performance.now() - started) / texts.length;
  console.log(
    `tool texts, batch ${batch}: ${ms.toFixed(1)} ms per tool (${texts.length} tools; 5,000 tools ≈ ${((ms * 5000) / 1000).toFixed(0)} s)`,
  );
}
// Wall time and this process's CPU time per query: on a shared machine the CPU time is the cost, the wall
// time includes waiting for a core.
const times = [];
const cpuTimes = [];
for (let i = 0; i < queryCount; i++) {
  const q = tasks[i % tasks.length].task;
  const started = performance.now();
  const cpu = process.cpuUsage();
  await model.embed([q]);
  const used = process.cpuUsage(cpu);
  cpuTimes.push((used.user + used.system) / 1000);
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
cpuTimes.sort((a, b) => a - b);
const p = (q, list = times) => list[Math.min(list.length - 1, Math.floor(q * list.length))].toFixed(2);
console.log(`queries, CPU time: p50 ${p(0.5, cpuTimes)} ms, p95 ${p(0.95, cpuTimes)} ms`);
globalThis.gc?.();
console.log(
  `queries: p50 ${p(0.5)} ms, p95 ${p(0.95)} ms, p99 ${p(0.99)} ms (${queryCount}); RSS after ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
);
