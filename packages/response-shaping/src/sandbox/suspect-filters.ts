import type { ResponseFilter } from "../filter/response-filter.js";

// A filter that ran past its budget once will likely do so again (a tool's filter runs on every call). Such
// filters run in a sandbox of their own, so that a tenant's runaway filter delays its own calls, not every
// other tool's filter behind it in one queue. Keyed by language and expression (the same text is the same
// program), remembered for the last SUSPECTS_KEPT of them, forgotten after SUSPECT_FOR_MS without a new overrun.

/** How many suspect filters are remembered. */
export const SUSPECTS_KEPT = 1024;

/** How long a filter stays suspect after its last overrun. */
export const SUSPECT_FOR_MS = 10 * 60 * 1000;

/** Expression key → when it last ran past its budget (insertion order: oldest first). */
const suspects = new Map<string, number>();

const keyOf = (filter: ResponseFilter): string => `${filter.language}\u0000${filter.expression}`;

/** Records that `filter` ran past its budget. */
export const markSuspect = (filter: ResponseFilter, now = Date.now()): void => {
  const key = keyOf(filter);
  suspects.delete(key);
  suspects.set(key, now);
  if (suspects.size > SUSPECTS_KEPT) suspects.delete(suspects.keys().next().value as string);
};

/** True when `filter` ran past its budget within `SUSPECT_FOR_MS`. */
export const isSuspect = (filter: ResponseFilter, now = Date.now()): boolean => {
  const key = keyOf(filter);
  const at = suspects.get(key);
  if (at === undefined) return false;
  if (now - at <= SUSPECT_FOR_MS) return true;
  suspects.delete(key);
  return false;
};
