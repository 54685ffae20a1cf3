import { expect } from "vitest";

/** A minute of 2030-01-01 (UTC): the expiries the pruning cases use. */
const minuteAt = (minute: number) => new Date(Date.UTC(2030, 0, 1, 0, minute));

/** How a case inserts, prunes and looks up the expiring rows of one kind. */
export interface Expiring {
  readonly insert: (n: number, expiresAt: Date) => Promise<unknown>;
  readonly prune: (before: Date, limit: number) => Promise<number>;
  /** Row `n`, or undefined when it is gone. */
  readonly find: (n: number) => Promise<unknown>;
  readonly id: (n: number) => string;
}

/**
 * Rows 1..4 expiring at minutes 3, 1, 2 and 20, pruned at minute 10 two at a time: the two oldest go first
 * (row 2 among them), then the last expired one, then none; the live one stays. Kinds of short-lived rows
 * (forms and consents under way) share this rule.
 */
export const expectBoundedPrune = async (rows: Expiring) => {
  for (const [n, minute] of [
    [1, 3],
    [2, 1],
    [3, 2],
    [4, 20],
  ] as const)
    await rows.insert(n, minuteAt(minute));
  expect(await rows.prune(minuteAt(10), 2)).toBe(2);
  // The two oldest went first.
  expect(await rows.find(2)).toBeUndefined();
  expect(await rows.prune(minuteAt(10), 2)).toBe(1);
  expect(await rows.prune(minuteAt(10), 2)).toBe(0);
  expect(await rows.find(4)).toMatchObject({ id: rows.id(4) });
};
