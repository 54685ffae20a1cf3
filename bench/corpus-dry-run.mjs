// Dry-runs every description of a folder through the service's reader (the worker pool, as the service reads
// them) and prints, per file, operations that became tools and what was skipped. For a quick look at the
// shared corpus after an import change:
//   ./run build && node bench/corpus-dry-run.mjs ../shared/openapi-corpus/docs
import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import * as D from "@mcpsm/domain";
import { importProvider } from "@mcpsm/domain/openapi-import";
import * as U from "@mcpsm/domain/use-cases";
import { workerReaderLayer } from "@mcpsm/openapi-import";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import { Effect, Layer, ManagedRuntime } from "effect";

const folder = process.argv[2] ?? "../shared/openapi-corpus/docs";
const services = ManagedRuntime.make(
  Layer.mergeAll(
    MemoryStorageLive,
    U.aesGcmCipherLayer(new Uint8Array(randomBytes(32))),
    U.quotasLayer(),
    workerReaderLayer(),
  ),
);
const actor = { tenant: "corpus", scopes: new Set(D.ALL_SCOPES) };
for (const file of (await readdir(folder)).sort()) {
  const document = await readFile(join(folder, file), "utf8");
  const started = performance.now();
  const exit = await services.runPromiseExit(
    importProvider(actor, {
      source: { _tag: "Document", document },
      dryRun: true,
      provider: { name: file.slice(0, 40) },
    }).pipe(Effect.map(({ result }) => result)),
  );
  const ms = Math.round(performance.now() - started);
  if (exit._tag === "Failure") {
    console.log(`${file}: refused (${ms} ms): ${JSON.stringify(exit.cause).slice(0, 300)}`);
    continue;
  }
  const { provider, report } = exit.value;
  const reasons = {};
  for (const s of report.skipped) reasons[s.reason.slice(0, 70)] = (reasons[s.reason.slice(0, 70)] ?? 0) + 1;
  console.log(
    `${file}: ${provider.tools.length} tools, ${report.skipped.length} skipped, ${report.warnings.length} warnings (${ms} ms)`,
    Object.keys(reasons).length > 0 ? JSON.stringify(reasons) : "",
  );
}
await services.dispose();
