import type { Storage } from "@mcpsm/domain/storage";
import { pruneAuditEvents } from "@mcpsm/domain/use-cases";
import type { ManagedRuntime } from "effect";
import type { Logger } from "pino";

/** How often the audit trail is pruned. */
const PRUNE_INTERVAL_MS = 60 * 60_000;

/**
 * Prunes audit events older than `retentionDays` now and then every hour, in the background: bounded
 * batches, one transaction each, so the pruning never holds a long lock or blocks a request. `stop` waits
 * for a run in progress.
 */
export const startAuditRetention = (
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
      .runPromise(pruneAuditEvents(retentionDays))
      .then((deleted) => {
        if (deleted > 0) logger.info({ deleted, retentionDays }, "audit events pruned");
      })
      .catch((error: unknown) => logger.warn({ err: error }, "pruning audit events failed; retrying later"));
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
