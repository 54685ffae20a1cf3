import { availableParallelism } from "node:os";
import { Config } from "effect";

// How OpenAPI descriptions are read (docs/security.md, "OpenAPI import"): in a pool of worker threads, each
// read under a deadline and a heap limit, with a bound on reads waiting and on one tenant's reads at once.

export interface ImportSettings {
  /** IMPORT_WORKERS: descriptions read at once, each in its own worker thread (default: cores - 1, 1 to 4). */
  readonly workers: number;
  /** IMPORT_QUEUE: reads waiting for a worker; more answer 429. */
  readonly queue: number;
  /** IMPORT_TENANT_CONCURRENCY: imports one tenant may run at once; more answer 429. */
  readonly perTenant: number;
  /** IMPORT_DEADLINE_MS: longest one read may take; longer answers 400 naming import.document. */
  readonly deadlineMs: number;
  /** IMPORT_MEMORY_MB: the heap a worker may use; more answers 400 naming import.document. */
  readonly memoryMb: number;
}

export const DEFAULT_IMPORT_SETTINGS: ImportSettings = {
  // A core stays free for the event loop that answers every other request.
  workers: Math.max(1, Math.min(4, availableParallelism() - 1)),
  queue: 8,
  perTenant: 2,
  // Stripe's 4 MiB description takes 8-15 s to read on a busy 2-core machine.
  deadlineMs: 30_000,
  memoryMb: 512,
};

const whole = (name: string, fallback: number, min: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `must be a whole number of at least ${min}`, validation: (n) => n >= min }),
    Config.withDefault(fallback),
  );

const d = DEFAULT_IMPORT_SETTINGS;

/** IMPORT_WORKERS, IMPORT_QUEUE, IMPORT_TENANT_CONCURRENCY, IMPORT_DEADLINE_MS and IMPORT_MEMORY_MB. */
export const importConfig: Config.Config<ImportSettings> = Config.all({
  workers: whole("IMPORT_WORKERS", d.workers, 1),
  queue: whole("IMPORT_QUEUE", d.queue, 0),
  perTenant: whole("IMPORT_TENANT_CONCURRENCY", d.perTenant, 1),
  deadlineMs: whole("IMPORT_DEADLINE_MS", d.deadlineMs, 100),
  memoryMb: whole("IMPORT_MEMORY_MB", d.memoryMb, 64),
});
