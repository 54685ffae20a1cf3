import type { ResponseFilter } from "../filter/response-filter.js";

// A filter that keeps running past its budget will likely do so again (a tool's filter runs on every call).
// Such filters run in a sandbox of their own, so that a tenant's runaway filter delays its own calls, not
// every other tool's filter queued behind it. A filter becomes suspect at its SUSPECT_AFTER_OVERRUNS-th overrun
// within SUSPECT_FOR_MS (one overrun may be a busy machine's, not the filter's) and stops being one as soon
// as a run completes within its budget. Keyed by language and expression (the same text is the same
// program); the last SUSPECTS_KEPT filters that overran are remembered.

/** How many filters that overran are remembered. */
export const SUSPECTS_KEPT = 1024;

/** How long an overrun counts. */
export const SUSPECT_FOR_MS = 10 * 60 * 1000;

/** Overruns within `SUSPECT_FOR_MS` that make a filter suspect. */
export const SUSPECT_AFTER_OVERRUNS = 2;

/** Expression key → its overruns and the last one's time (insertion order: least recent first). */
const overruns = new Map<string, { readonly count: number; readonly at: number }>();

const keyOf = (filter: ResponseFilter): string => `${filter.language}\u0000${filter.expression}`;

const current = (key: string, now: number) => {
  const entry = overruns.get(key);
  if (entry === undefined) return undefined;
  if (now - entry.at <= SUSPECT_FOR_MS) return entry;
  overruns.delete(key);
  return undefined;
};

/** Records that `filter` ran past its budget. */
export const markOverrun = (filter: ResponseFilter, now = Date.now()): void => {
  const key = keyOf(filter);
  const count = (current(key, now)?.count ?? 0) + 1;
  overruns.delete(key);
  overruns.set(key, { count, at: now });
  if (overruns.size > SUSPECTS_KEPT) overruns.delete(overruns.keys().next().value as string);
};

/** Records that `filter` completed within its budget: it is not suspect any more. */
export const markWithinBudget = (filter: ResponseFilter): void => {
  overruns.delete(keyOf(filter));
};

/** True when `filter` ran past its budget `SUSPECT_AFTER_OVERRUNS` times within `SUSPECT_FOR_MS`. */
export const isSuspect = (filter: ResponseFilter, now = Date.now()): boolean =>
  (current(keyOf(filter), now)?.count ?? 0) >= SUSPECT_AFTER_OVERRUNS;
