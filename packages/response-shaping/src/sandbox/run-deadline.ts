// When a sandboxed run has had its budget. The budget is the thread's own CPU time, not the wall clock: on a
// loaded machine a thread may wait for a core, and a trivial filter that got 5 ms of CPU in 100 ms of wall
// time has not run past anything. The wall clock still caps a run at WALL_CAP_FACTOR times its budget, so a
// starved or stuck thread cannot hold its queue for long.

/** A run may take at most this many times its budget in wall time, whatever CPU it got. */
export const WALL_CAP_FACTOR = 10;

/** What the sandbox knows when a run's timer fires. */
export interface RunClock {
  readonly budgetMs: number;
  /** Wall time since the run was sent to its thread. */
  readonly elapsedMs: number;
  /** CPU time the thread spent since then; undefined when it could not be read (the wall clock decides). */
  readonly cpuMs: number | undefined;
}

/** `stop` when the run has had its budget (CPU, or the wall cap); else how long to wait before asking again. */
export const nextRunCheck = (
  clock: RunClock,
): { readonly stop: true } | { readonly stop: false; readonly waitMs: number } => {
  const used = clock.cpuMs ?? clock.elapsedMs;
  const cpuLeft = clock.budgetMs - used;
  const wallLeft = clock.budgetMs * WALL_CAP_FACTOR - clock.elapsedMs;
  // Under a millisecond left is spent: another timer would cost more than it could grant.
  if (cpuLeft < 1 || wallLeft < 1) return { stop: true };
  return { stop: false, waitMs: Math.min(cpuLeft, wallLeft) };
};
