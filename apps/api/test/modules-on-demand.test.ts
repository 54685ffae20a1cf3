import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServiceProcess } from "./support/service-process.js";

// What the embedded default (no DATABASE_URL, REDIS_URL, tracing or metrics listener) never needs is not
// loaded at start-up: its code would only take memory (docs/performance.md, "Embedded store"). Each of these
// modules still loads when its feature is used; their own tests (rate limits and the cancellation relay on
// Redis, tracing, metrics, Swagger 2.0 and YAML imports) run that path.
const ON_DEMAND = [
  "/node_modules/ioredis/",
  "/node_modules/@opentelemetry/sdk-trace/",
  "/node_modules/@opentelemetry/exporter-trace-otlp-http/",
  "/node_modules/prom-client/",
  "/node_modules/swagger2openapi/",
  "/node_modules/yaml/",
];

describe("modules loaded on demand", () => {
  let dataDir: string | undefined;
  afterAll(async () => {
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it("a started embedded service has not loaded Redis, tracing, metrics or the Swagger 2.0 and YAML readers", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "mcpsm-modules-"));
    const record = join(dataDir, "modules.txt");
    const recorder = join(import.meta.dirname, "support", "module-load-recorder.mjs");
    const service = startServiceProcess({
      DATA_DIR: dataDir,
      METRICS_PORT: "0",
      NODE_OPTIONS: `--import ${recorder}`,
      MODULE_LOAD_RECORD: record,
    });
    try {
      const url = await service.listening(90_000);
      expect((await fetch(new URL("/readyz", url))).status).toBe(200);
      const loaded = readFileSync(record, "utf8").split("\n");
      // The recorder saw the service's own modules and the embedded database's…
      expect(loaded.some((u) => u.includes("/node_modules/@electric-sql/pglite/"))).toBe(true);
      expect(loaded.some((u) => u.endsWith("/apps/api/dist/service.js"))).toBe(true);
      // …and none of these.
      expect(loaded.filter((u) => ON_DEMAND.some((part) => u.includes(part)))).toEqual([]);
    } finally {
      expect((await service.stop()).code).toBe(0);
    }
  }, 120_000);
});
