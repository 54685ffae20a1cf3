import { Effect } from "effect";
import type { MatchCountCache } from "../read-cache/match-count-cache.js";
import type { ConstraintBreach } from "../sql/db-errors.js";
import type { Tables } from "../table/tables.js";
import { unexpected } from "./breaches.js";

/** Runs statements for the operations of one transaction (or of one `read`). */
export interface Runner {
  /**
   * Runs one statement with `$n` parameters; a constraint breach fails, any other error is a defect. With
   * `prepared`, sent as a named statement of the connection (`statementName`): parsed and planned once per
   * connection when PostgreSQL keeps its generic plan, for hot statements whose planning costs as much as
   * their run. Sent in a simple query with deferred statements ahead of it, it is planned as usual.
   */
  readonly rows: (
    sql: string,
    params?: ReadonlyArray<unknown>,
    prepared?: boolean,
  ) => Effect.Effect<ReadonlyArray<Record<string, unknown>>, ConstraintBreach>;
  /**
   * Runs a read that takes no lock and writes nothing, as `rows`; sent before the transaction has sent or
   * queued anything, it runs outside it, on a pooled connection of its own. Under READ COMMITTED each
   * statement reads its own snapshot, inside a transaction or not, and the transaction has written nothing
   * yet: the rows are the same. The transaction then takes its connection at its first lock or write, so a
   * server create holds one for a single round trip (the embedded store runs one transaction at a time:
   * docs/decisions.md, "postwrite").
   */
  readonly readAhead: (
    sql: string,
    params: ReadonlyArray<unknown>,
    prepared: boolean,
  ) => Effect.Effect<ReadonlyArray<Record<string, unknown>>>;
  /**
   * Runs a write that may breach a constraint so that the breach leaves the transaction usable (a
   * savepoint around it inside a transaction), as the in-memory adapter's failed write leaves its draft.
   */
  readonly guarded: <A, E>(write: Effect.Effect<A, E>) => Effect.Effect<A, E>;
  /**
   * The remembered match counts of filtered provider listings, for statements outside a transaction only:
   * inside one, the scopes its writes touched already carry its id as their generation while it may still
   * write more, so a count it made could be reused after those further writes.
   */
  readonly matchCounts?: MatchCountCache | undefined;
  /**
   * Runs a statement whose answer nobody reads and that can breach no constraint (an advisory lock, the
   * audit event) in the round trip of the transaction's next statement, ahead of it (at the latest with
   * COMMIT); outside a transaction at once. An error it meets fails that next statement (or COMMIT).
   */
  readonly deferred: (sql: string, params?: ReadonlyArray<unknown>) => Effect.Effect<void>;
  /**
   * Queues a write expected to succeed for the transaction's next round trip (at the latest with COMMIT)
   * and answers true at once: nothing waits for its answer, so the statements after it (the audit event,
   * COMMIT) go in the same round trip. `sql` must fail when the write is refused: by a constraint breach, or
   * by calling `refuse_expected_write` when it wrote nothing. The round trip then stops there, the transaction
   * is rolled back and run again from the start with no write expected: this answers false then (queuing
   * nothing), as it does outside a transaction and when a parameter cannot be written into the text, and the
   * caller runs the write as usual. With `prepared`, sent as `execute` of a statement the connection
   * prepared by SQL (planned once per connection while PostgreSQL keeps its generic plan).
   */
  readonly expect: (sql: string, params?: ReadonlyArray<unknown>, prepared?: boolean) => Effect.Effect<boolean>;
}

/** What the operations of one table need: the runner, the tables, and reads that decode their `r` column. */
export interface TxContext {
  readonly runner: Runner;
  readonly tables: Tables;
  /** Runs a statement that cannot breach a constraint (a breach would be a defect); `prepared` as `Runner.rows`. */
  readonly rows: (
    sql: string,
    params?: ReadonlyArray<unknown>,
    prepared?: boolean,
  ) => Effect.Effect<ReadonlyArray<Record<string, unknown>>>;
  /** `Runner.readAhead`. */
  readonly readAhead: Runner["readAhead"];
  /** The decoded `r` column of the first row, if any. */
  readonly one: <T>(
    sql: string,
    params: ReadonlyArray<unknown>,
    decode: (json: unknown) => T,
  ) => Effect.Effect<T | undefined>;
  /** The decoded `r` column of every row. */
  readonly many: <T>(
    sql: string,
    params: ReadonlyArray<unknown>,
    decode: (json: unknown) => T,
  ) => Effect.Effect<ReadonlyArray<T>>;
  /** The `n` column of the first row (0 when there is none). */
  readonly count: (sql: string, params: ReadonlyArray<unknown>) => Effect.Effect<number>;
}

/** The context of the operations that run their statements with `runner`. */
export const txContext = (tables: Tables, runner: Runner): TxContext => {
  const rows = (sql: string, params: ReadonlyArray<unknown> = [], prepared = false) =>
    Effect.catchTag(runner.rows(sql, params, prepared), "ConstraintBreach", unexpected);
  return {
    runner,
    tables,
    rows,
    readAhead: runner.readAhead,
    one: (sql, params, decode) =>
      Effect.map(rows(sql, params), (result) => (result[0] === undefined ? undefined : decode(result[0].r))),
    many: (sql, params, decode) => Effect.map(rows(sql, params), (result) => result.map((row) => decode(row.r))),
    count: (sql, params) => Effect.map(rows(sql, params), (result) => Number(result[0]?.n ?? 0)),
  };
};
