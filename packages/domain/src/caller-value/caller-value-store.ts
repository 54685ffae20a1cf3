import type { Effect } from "effect";
import type { ReferenceViolation } from "../storage/storage-errors.js";
import type { CallerValueFormRow, CallerValueRow } from "./caller-value-rows.js";

type Op<A, E = never> = Effect.Effect<A, E>;

/** Per-caller values of variables and the forms that collect them (docs/api-rules.md §23). */
export interface CallerValueStore {
  /** The values `principal` holds for any of `variableIds`. */
  readonly findCallerValues: (
    variableIds: ReadonlyArray<string>,
    principal: string,
  ) => Op<ReadonlyArray<CallerValueRow>>;
  readonly findCallerValueById: (id: string) => Op<CallerValueRow | undefined>;
  /** The values of one variable, in creation order. */
  readonly listCallerValues: (variableId: string) => Op<ReadonlyArray<CallerValueRow>>;
  /**
   * Inserts the value, or replaces the one of the same (variable, principal) keeping its id and creation
   * time; answers the stored row. ReferenceViolation when the variable or the server token is gone.
   */
  readonly putCallerValue: (row: CallerValueRow) => Op<CallerValueRow, ReferenceViolation>;
  readonly deleteCallerValue: (id: string) => Op<void>;
  /** Stores a form under way (ReferenceViolation when its variable or server token is gone). */
  readonly insertCallerValueForm: (row: CallerValueFormRow) => Op<void, ReferenceViolation>;
  readonly findCallerValueForm: (id: string) => Op<CallerValueFormRow | undefined>;
  /** Deletes and answers a form under way (single use: a second take finds nothing). */
  readonly takeCallerValueForm: (id: string) => Op<CallerValueFormRow | undefined>;
  /** Deletes up to `limit` forms (of any tenant) that expired before `before`; answers how many. */
  readonly pruneCallerValueForms: (before: Date, limit: number) => Op<number>;
}
