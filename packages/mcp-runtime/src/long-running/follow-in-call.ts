import { setTimeout as sleep } from "node:timers/promises";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { type FollowBounds, nextWaitMs, overdueResult, type Watch } from "./watch.js";

// docs/api-rules.md §22, 2025-11-25 era (and 2026-07-28 callers without the tasks extension): the call itself
// follows the operation until it is done or its deadline passes, one look per interval, telling the caller
// about each look when it asked for progress.

/** Reports a step of a running call to its caller (a `notifications/progress`); never rejects. */
export type ProgressReport = (progress: number, message: string) => void;

/** Follows an accepted operation inside the call; resolves to its result, or a tool error at the deadline. */
export const followInCall = async (
  bounds: FollowBounds,
  watch: Watch,
  start: { readonly url: URL; readonly waitMs?: number | undefined },
  signal: AbortSignal,
  progress: ProgressReport | undefined,
): Promise<CallToolResult> => {
  const deadline = Date.now() + bounds.callDeadlineMs;
  let url = start.url;
  let wait = nextWaitMs(bounds, start.waitMs);
  progress?.(0, "the upstream accepted the request; following its operation");
  for (let look = 1; ; look++) {
    // A look that could only start after the deadline is not made: the answer is known now.
    if (Date.now() + wait > deadline) return overdueResult(bounds.callDeadlineMs);
    try {
      await sleep(wait, undefined, { signal });
    } catch {
      return { isError: true, content: [{ type: "text", text: "the request was cancelled" }] };
    }
    const step = await watch(url, signal);
    if (step.kind === "done") return step.result;
    url = step.url ?? url;
    wait = nextWaitMs(bounds, step.waitMs);
    progress?.(look, step.message ?? `the upstream operation is still running (look ${look})`);
  }
};
