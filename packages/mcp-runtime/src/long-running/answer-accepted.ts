import type { EffectRunner, UpstreamFailure, UpstreamResponse } from "@mcpsm/upstream-http";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { Cause, type Effect, Exit } from "effect";
import type { SentWithToken } from "../upstream-auth/send-with-upstream-token.js";
import { errorResult } from "../calls/tool-result.js";
import { followInCall, type ProgressReport } from "./follow-in-call.js";
import { pollStepOf, retryAfterMs, statusUrlOf } from "./operation-status.js";
import type { UpstreamTasks, TaskView } from "./upstream-tasks.js";
import type { FollowBounds, Watch } from "./watch.js";

// docs/api-rules.md §22: a tool call whose upstream answered `202 Accepted` with a status URL. A caller that
// declared the tasks extension gets a task; any other gets the operation followed inside its call.

/** The extension a 2026-07-28 caller declares in its per-request capabilities to accept tasks. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The runtime's long-running machinery (runtime.ts makes one per process). */
export interface LongRunning {
  readonly bounds: FollowBounds;
  readonly tasks: UpstreamTasks;
}

/** What the call knows about its caller: whether it takes a task (and whose), whether it asked for progress. */
export interface LongRunningCall {
  /** Set when the caller declared the tasks extension on this request: the key of whose task it is. */
  readonly taskOwner?: string | undefined;
  readonly progress?: ProgressReport | undefined;
}

/** The `CreateTaskResult` of the tasks extension. */
export type CreateTaskResult = TaskView & { readonly resultType: "task" };

/** A tool result the runtime returns: a call's result, or a task handle. */
export const isTaskResult = (result: object): result is CreateTaskResult =>
  (result as { resultType?: unknown }).resultType === "task";

/**
 * The watch of an operation: one look at its status URL through `lookAt` (the call's own exchange: same
 * headers, same upstream token, same address policy), the final answer mapped by `finish`.
 */
export const upstreamWatch =
  (
    runner: EffectRunner,
    lookAt: (url: URL, signal: AbortSignal) => Effect.Effect<SentWithToken, UpstreamFailure>,
    finish: (response: UpstreamResponse) => Promise<CallToolResult>,
  ): Watch =>
  async (url, signal) => {
    const exit = await runner.runPromiseExit(lookAt(url, signal));
    if (Exit.isFailure(exit)) {
      const failure = Cause.squash(exit.cause) as { message?: unknown };
      const message = typeof failure.message === "string" ? failure.message : "the upstream could not be reached";
      return { kind: "done", result: errorResult(`following the upstream operation failed: ${message}`) };
    }
    const sent = exit.value;
    if (sent.kind !== "response")
      return { kind: "done", result: errorResult(`following the upstream operation failed: ${sent.message}`) };
    const step = pollStepOf(sent.response, Date.now());
    return step.kind === "done" ? { kind: "done", result: await finish(step.response) } : step;
  };

/**
 * The answer to a call whose upstream accepted it (`response.accepted` set): a task, or the operation's result
 * followed within the call's deadline; undefined when there is nothing to follow (the 202 is the answer).
 */
export const answerAccepted = async (
  machinery: LongRunning | undefined,
  call: LongRunningCall,
  response: UpstreamResponse,
  watch: Watch,
  signal: AbortSignal,
): Promise<CallToolResult | CreateTaskResult | undefined> => {
  if (machinery === undefined) return undefined;
  const status = statusUrlOf(response);
  if (status.kind === "none") return undefined;
  const waitMs = retryAfterMs(response.accepted?.retryAfter ?? "", Date.now());
  if (call.taskOwner !== undefined) {
    const task = await machinery.tasks.create(call.taskOwner, status.url, waitMs, watch);
    if (task !== undefined) return { resultType: "task", ...task };
  }
  return followInCall(machinery.bounds, watch, { url: status.url, waitMs }, signal, call.progress);
};
