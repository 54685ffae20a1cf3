import { DEFAULT_WORKER_READER_OPTIONS, type WorkerReaderOptions } from "@mcpsm/openapi-import";
import { Config } from "effect";
import { whole } from "./security-config.js";

// How OpenAPI descriptions are read (docs/security.md, "OpenAPI import"): in a pool of worker threads, each
// read under a deadline and a heap limit, with a bound on reads waiting and on one tenant's reads at once.

/**
 * IMPORT_WORKERS (descriptions read at once, each in its own worker thread), IMPORT_QUEUE (reads waiting for a
 * worker; more answer 429), IMPORT_DEADLINE_MS and IMPORT_MEMORY_MB (time and heap of one read; past either the
 * import answers 400 naming import.document), and IMPORT_TENANT_CONCURRENCY.
 */
export interface ImportSettings extends Omit<WorkerReaderOptions, "idleMs"> {
  /** Imports one tenant may run at once; more answer 429. */
  readonly perTenant: number;
}

const { idleMs: _kept, ...reader } = DEFAULT_WORKER_READER_OPTIONS;

export const DEFAULT_IMPORT_SETTINGS: ImportSettings = { ...reader, perTenant: 2 };

const d = DEFAULT_IMPORT_SETTINGS;

/** IMPORT_WORKERS, IMPORT_QUEUE, IMPORT_TENANT_CONCURRENCY, IMPORT_DEADLINE_MS and IMPORT_MEMORY_MB. */
export const importConfig: Config.Config<ImportSettings> = Config.all({
  workers: whole("IMPORT_WORKERS", d.workers, 1),
  queue: whole("IMPORT_QUEUE", d.queue, 0),
  perTenant: whole("IMPORT_TENANT_CONCURRENCY", d.perTenant, 1),
  deadlineMs: whole("IMPORT_DEADLINE_MS", d.deadlineMs, 100),
  // Not lower: one JSON.parse of a 10 MiB text past a worker's heap limit ends the whole process, not the worker.
  memoryMb: whole("IMPORT_MEMORY_MB", d.memoryMb, 256),
});
