import type { Storage } from "@mcpsm/domain/storage";
import { pruneToolCalls } from "@mcpsm/domain/use-cases";
import type { ManagedRuntime } from "effect";
import type { Logger } from "pino";

/** How often the call log is pruned. */
const PRUNE_INTERVAL_MS = 60 * 60_000;

/**
 * Prunes tool calls older than `retentionDays` (CALL_LOG_RETENTION_DAYS) now and then every hour, in the
 * background, in bounded batches. `stop` waits for a run in progress.
 */
export const startCallLogRetention = (
  runtime: ManagedRuntime.ManagedRuntime<Storage, never>,
  retentionDays: number,
  logger: Logger,
  intervalMs: number = PRUNE_INTERVAL_MS,
) => {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = () => {
    if (stopped) return;
    running = runtime
      .runPromise(pruneToolCalls(retentionDays))
      .then((deleted) => {
        if (deleted > 0) logger.info({ deleted, retentionDays }, "tool calls pruned");
      })
      .catch((error: unknown) => logger.warn({ err: error }, "pruning tool calls failed; retrying later"));
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
