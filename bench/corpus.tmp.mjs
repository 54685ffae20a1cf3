import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import * as D from "@mcpsm/domain";
import * as U from "@mcpsm/domain/use-cases";
import * as I from "@mcpsm/domain/openapi-import";
import { openApiReaderLayer } from "@mcpsm/openapi-import";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import { Effect, Layer, ManagedRuntime } from "effect";
const services = ManagedRuntime.make(Layer.mergeAll(MemoryStorageLive, U.aesGcmCipherLayer(new Uint8Array(randomBytes(32))), U.quotasLayer({ toolsPerProvider: 100_000 }), openApiReaderLayer));
const actor = { tenant: "bench", scopes: new Set(D.ALL_SCOPES) };
for (const f of process.argv.slice(2)) {
  const o = await services.runPromise(Effect.either(I.importProvider(actor, { import: { document: readFileSync(f, "utf8"), dryRun: true } })));
  const name = f.split("/").at(-1);
  if (o._tag === "Left") { console.log(name, "refused:", JSON.stringify(o.left.errors ?? o.left.detail).slice(0, 200)); continue; }
  const r = o.right.result.report;
  const reasons = {}; for (const s of r.skipped) { const k = s.reason.slice(0, 300); reasons[k] = (reasons[k] ?? 0) + 1; }
  const size = r.skipped.filter((s) => /KiB|too large/.test(s.reason)).length;
  const extra = o.right.result.provider.tools.find((t) => t.method === "POST" && t.path === "/v2/checkout/orders") ? " [POST /v2/checkout/orders imported]" : "";
  console.log(`${name}: ${r.added.length} of ${r.added.length + r.skipped.length} operations became tools; size skips ${size}; ${r.warnings.length} warnings; baseURL '${o.right.result.provider.baseURL}'${extra}`, JSON.stringify(reasons));
}
await services.dispose();
