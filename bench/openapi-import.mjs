// How long an OpenAPI import of a 1,000-operation description takes (target: under 2 s), and the memory it uses.
//
//   ./run build && node bench/openapi-import.mjs [runs=5]
//
// The description: GitHub's REST API as @octokit/openapi ships it (OpenAPI 3.0.3, 1,223 operations, 6.9 MB as
// compact JSON), cut to its first 1,000 operations (the default tool quota). Two measurements, each `runs` times
// into a fresh tenant, median and worst printed:
//   use case — importProvider of @mcpsm/domain with the in-process reader on the in-memory store: parse nothing
//              (the document is an object), read, map, validate every tool, store provider and tools; then the
//              same with the service's reader, which reads in a worker thread (one store for every run);
//   HTTP     — POST /providers/import on the real service (apps/api, in-memory store, dev auth) with the
//              description as JSON text in the body: body read and JSON parse included.
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { startService } from "@mcpsm/api/dist/service.js";
import * as D from "@mcpsm/domain";
import { importProvider } from "@mcpsm/domain/openapi-import";
import { Storage } from "@mcpsm/domain/storage";
import * as U from "@mcpsm/domain/use-cases";
import { localConfig } from "@mcpsm/api/dist/config/local-config.js";
import { openApiReaderLayer, workerReaderLayer } from "@mcpsm/openapi-import";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import { Layer, ManagedRuntime } from "effect";
import pino from "pino";

const RUNS = Number(process.argv[2] ?? 5);
const OPERATIONS = 1000;
const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

const require = createRequire(import.meta.url);
const file = join(dirname(require.resolve("@octokit/openapi/package.json")), "generated/api.github.com.json");
const github = JSON.parse(await readFile(file, "utf8"));
let count = 0;
const paths = {};
for (const [path, item] of Object.entries(github.paths)) {
  const kept = Object.fromEntries(Object.entries(item).filter(([key]) => !METHODS.has(key) || count++ < OPERATIONS));
  if (Object.keys(kept).some((key) => METHODS.has(key))) paths[path] = kept;
}
const document = { ...github, paths, webhooks: {} };
const text = JSON.stringify(document);
console.log(
  `description: ${Math.min(count, OPERATIONS)} operations, ${(Buffer.byteLength(text) / 1024 / 1024).toFixed(1)} MiB as JSON`,
);

const stats = (label, times) => {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(
    `${label}: median ${median.toFixed(0)} ms, worst ${sorted.at(-1).toFixed(0)} ms over ${times.length} runs`,
  );
  return median;
};

// 1. The use case, each run on a fresh store (the in-memory store checks name uniqueness by scanning, so
// tools left by earlier runs would slow later ones; PostgreSQL has an index for it).
const freshServices = (readerLayer = openApiReaderLayer) =>
  ManagedRuntime.make(
    Layer.mergeAll(
      MemoryStorageLive,
      U.aesGcmCipherLayer(new Uint8Array(randomBytes(32))),
      U.quotasLayer(),
      readerLayer,
    ),
  );
const useCase = [];
let tools = 0;
let peakHeap = 0;
for (let i = 0; i < RUNS + 1; i++) {
  const actor = { tenant: `bench-${i}`, scopes: new Set(D.ALL_SCOPES) };
  const services = freshServices();
  await services.runPromise(Storage);
  const started = performance.now();
  const { result } = await services.runPromise(importProvider(actor, { source: { _tag: "Document", document } }));
  const took = performance.now() - started;
  await services.dispose();
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  tools = result.provider.tools.length;
  if (i > 0) useCase.push(took); // the first run warms the JIT and the module graph
}
console.log(`tools imported: ${tools}`);
const median = stats("use case (in-memory store)", useCase);

// 1b. The same with the service's reader: the description is read in a worker thread (a warm one after the
// first run) and comes back as JSON text.
const inWorker = [];
const workerServices = freshServices(workerReaderLayer());
for (let i = 0; i < RUNS + 1; i++) {
  const actor = { tenant: `bench-worker-${i}`, scopes: new Set(D.ALL_SCOPES) };
  const started = performance.now();
  await workerServices.runPromise(importProvider(actor, { source: { _tag: "Document", document } }));
  if (i > 0) inWorker.push(performance.now() - started);
}
await workerServices.dispose();
stats("use case, read in a worker thread (in-memory store)", inWorker);

// 2. Over HTTP, on the real service.
const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-"));
const service = await startService(localConfig(dataDir), { logger: pino({ level: "silent" }) });
// One service for every run, so the HTTP figure includes the store growing by 1,000 tools a run.
const http = [];
for (let i = 0; i < RUNS + 1; i++) {
  const token = await mintDevToken(dataDir, { subject: `http-${i}`, scopes: D.ALL_SCOPES });
  const started = performance.now();
  const response = await fetch(`${service.url}/providers/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: `{"import":{"document":${text}}}`,
  });
  await response.arrayBuffer();
  const took = performance.now() - started;
  if (response.status !== 201) throw new Error(`import answered ${response.status}`);
  if (i > 0) http.push(took);
}
stats("POST /providers/import (HTTP, in-memory store)", http);
await service.close();
await rm(dataDir, { recursive: true, force: true });
console.log(`heap used at most: ${(peakHeap / 1024 / 1024).toFixed(0)} MiB`);
console.log(median < 2000 ? "target met: under 2 s" : "TARGET MISSED: 2 s or more");
