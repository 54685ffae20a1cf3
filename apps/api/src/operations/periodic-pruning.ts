import type { Storage } from "@mcpsm/domain/storage";
import type { Effect, ManagedRuntime } from "effect";
import type { Logger } from "pino";

/** How often a retention is applied. */
const PRUNE_INTERVAL_MS = 60 * 60_000;

/**
 * Runs `prune` (which deletes what is older than a retention, in bounded batches of one transaction each, so
 * it never holds a long lock or blocks a request) now and then every `intervalMs`, in the background, logging
 * what it deleted as `<what> pruned`. `stop` waits for a run in progress.
 */
export const startPeriodicPruning = (
  runtime: ManagedRuntime.ManagedRuntime<Storage, never>,
  what: string,
  prune: Effect.Effect<number, unknown, Storage>,
  retentionDays: number,
  logger: Logger,
  intervalMs: number = PRUNE_INTERVAL_MS,
) => {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = () => {
    if (stopped) return;
    running = runtime
      .runPromise(prune)
      .then((deleted) => {
        if (deleted > 0) logger.info({ deleted, retentionDays }, `${what} pruned`);
      })
      .catch((error: unknown) => logger.warn({ err: error }, `pruning ${what} failed; retrying later`));
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
};
