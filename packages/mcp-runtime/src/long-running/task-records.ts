import {
  createUpstreamTask,
  sweepUpstreamTasks,
  type UpstreamTaskRow,
  type UpstreamTaskStatus,
  updateUpstreamTask,
  upstreamTaskById,
} from "@mcpsm/domain/mcp";
import type { Storage } from "@mcpsm/domain/storage";
import type { EffectRunner } from "@mcpsm/upstream-http";
import { Cause, type Effect, Exit } from "effect";

// docs/api-rules.md §22: where the tasks live, shared by every instance on the same store. A failed store
// operation rejects; the task registry decides what that means for the caller.

/** The shared record of tasks, as the task registry uses it. */
export interface TaskRecords {
  readonly insert: (row: UpstreamTaskRow) => Promise<void>;
  readonly find: (id: string) => Promise<UpstreamTaskRow | undefined>;
  /** Compare-and-set on the status: false when another instance changed the task first. */
  readonly update: (row: UpstreamTaskRow, expected: UpstreamTaskStatus) => Promise<boolean>;
  readonly sweep: (at: Date) => Promise<void>;
}

const run = async <A, E>(runner: EffectRunner, effect: Effect.Effect<A, E, Storage>): Promise<A> => {
  const exit = await runner.runPromiseExit(effect);
  if (Exit.isSuccess(exit)) return exit.value;
  // The store's own failure travels as the cause, so whoever logs the rejection sees what went wrong.
  throw new Error("the task store failed", { cause: Cause.squash(exit.cause) });
};

/** The task records of the service's store (the domain's use cases through `runner`). */
export const storedTaskRecords = (runner: EffectRunner): TaskRecords => ({
  insert: (row) => run(runner, createUpstreamTask(row)),
  find: (id) => run(runner, upstreamTaskById(id)),
  update: (row, expected) => run(runner, updateUpstreamTask(row, expected)),
  sweep: async (at) => void (await run(runner, sweepUpstreamTasks(at))),
});
