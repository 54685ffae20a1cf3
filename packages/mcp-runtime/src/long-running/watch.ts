import type { CallToolResult } from "@modelcontextprotocol/server";

// What following an upstream operation needs from the call that started it: one look at the status URL, with
// the call's own credentials and under the upstream address policy (call-tool.ts builds it).

/** One look at the status URL: still working (maybe elsewhere, with a wait the upstream asked for), or the result. */
export type WatchStep =
  | {
      readonly kind: "working";
      readonly url?: URL | undefined;
      readonly waitMs?: number | undefined;
      readonly message?: string | undefined;
    }
  | { readonly kind: "done"; readonly result: CallToolResult };

/** Looks once at `url`; never rejects (an upstream failure is a `done` step with a tool error result). */
export type Watch = (url: URL, signal: AbortSignal) => Promise<WatchStep>;

/** The bounds of following: the shortest wait between two looks, the longest, and the deadlines. */
export interface FollowBounds {
  readonly intervalMs: number;
  readonly taskDeadlineMs: number;
  readonly callDeadlineMs: number;
}

/** The longest wait between looks, whatever `Retry-After` says: a task's status stays reasonably fresh. */
export const MAX_WAIT_MS = 60_000;

/** The wait before the next look: the upstream's `Retry-After` within [interval, MAX_WAIT_MS]. */
export const nextWaitMs = (bounds: FollowBounds, asked: number | undefined) =>
  Math.min(MAX_WAIT_MS, Math.max(bounds.intervalMs, asked ?? bounds.intervalMs));

/** The tool error result of an operation that did not finish in time. */
export const overdueResult = (ms: number): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: `the upstream operation did not finish within ${ms} ms` }],
});
