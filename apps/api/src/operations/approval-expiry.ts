import type { Storage } from "@mcpsm/domain/storage";
import { type ExpiredApprovals, sweepExpiredApprovals } from "@mcpsm/domain/use-cases";
import type { ManagedRuntime } from "effect";
import type { Logger } from "pino";

/** How often expired approvals are swept: the `mcpsm_approvals_expired_total` counter lags by at most this. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Deletes expired approvals (docs/api-rules.md §20) now and then every minute, in the background, reporting
 * what each sweep deleted to `onExpired` (the metrics). `sweep` runs one at once (tests, instead of waiting);
 * `stop` waits for a sweep in progress.
 */
export const startApprovalExpiry = (
  runtime: ManagedRuntime.ManagedRuntime<Storage, never>,
  logger: Logger,
  onExpired: (swept: ExpiredApprovals) => void,
  intervalMs: number = SWEEP_INTERVAL_MS,
) => {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const sweep = () => {
    if (stopped) return running;
    running = running.then(() =>
      runtime
        .runPromise(sweepExpiredApprovals())
        .then((swept) => {
          if (swept.deleted > 0) logger.info({ ...swept }, "expired approvals swept");
          onExpired(swept);
        })
        .catch((error: unknown) => logger.warn({ err: error }, "sweeping expired approvals failed; retrying later")),
    );
    return running;
  };
  void sweep();
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref();
  return {
    sweep,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
};
