import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as D from "@mcpsm/domain";
import * as U from "@mcpsm/domain/use-cases";
import * as I from "@mcpsm/domain/openapi-import";
import { openApiReaderLayer } from "@mcpsm/openapi-import";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import { Layer, ManagedRuntime } from "effect";
const require = createRequire(import.meta.url);
const github = JSON.parse(await readFile(join(dirname(require.resolve("@octokit/openapi/package.json")), "generated/api.github.com.json"), "utf8"));
const M = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
let count = 0; const paths = {};
for (const [path, item] of Object.entries(github.paths)) { const kept = Object.fromEntries(Object.entries(item).filter(([k]) => !M.has(k) || count++ < 1000)); if (Object.keys(kept).some((k) => M.has(k))) paths[path] = kept; }
const document = { ...github, paths, webhooks: {} };
for (let i = 0; i < 4; i++) {
  const services = ManagedRuntime.make(Layer.mergeAll(MemoryStorageLive, U.aesGcmCipherLayer(new Uint8Array(randomBytes(32))), U.quotasLayer(), openApiReaderLayer));
  const t = performance.now();
  const { result } = await services.runPromise(I.importProvider({ tenant: `b${i}`, scopes: new Set(D.ALL_SCOPES) }, { import: { document } }));
  console.log(`run ${i}: ${(performance.now() - t).toFixed(0)} ms, ${result.provider.tools.length} tools, ${result.report.skipped.length} skipped`);
  await services.dispose();
}
