import { Unavailable } from "@mcpsm/domain/errors";
import type { StorageTx } from "@mcpsm/domain/storage";
import { Cause, Effect } from "effect";
import type pg from "pg";
import { COMMIT_AND_NOTIFY } from "../read-cache/change-listener.js";
import {
  ConstraintBreach,
  constraintBreachOf,
  DatabaseUnreachable,
  ExpectedWriteRefused,
  isConnectionError,
  isTransientConflict,
  reasonOf,
  TransientConflict,
} from "../sql/db-errors.js";
import { type ObservedStatement, observedAll } from "../sql/statement-observer.js";

// The round trips of the PostgreSQL store: statements, simple queries, savepoints, and how a failure of one
// is told apart (a breach, a lost connection, a transient conflict, a refused expected write).

/** A statement of a simple query, and its text for the statement observer (with placeholders). */
export interface Part {
  readonly sql: string;
  readonly text: string;
  /** A write expected to succeed (`Runner.expect`): a failure of its round trip runs the transaction again. */
  readonly expected?: boolean;
  /**
   * `sql` is `execute <name>(…)` of this statement, prepared by SQL on the connection: the round trip
   * carries its `prepare` the first time (a simple query cannot use the protocol's named statements).
   */
  readonly prepare?: { readonly name: string; readonly sql: string };
}
export const BEGIN: Part = { sql: "begin", text: "begin" };
export const COMMIT: Part = { sql: COMMIT_AND_NOTIFY, text: COMMIT_AND_NOTIFY };
/** COMMIT without the change notification, for a database no other process uses. */
export const PLAIN_COMMIT: Part = { sql: "commit", text: "commit" };
/** The savepoint of a guarded write (nested ones share the name: each release ends the latest). */
export const SAVEPOINT = "savepoint breach_guard";
export const RELEASE: Part = { sql: "release savepoint breach_guard", text: "release savepoint breach_guard" };

export const unavailable = (reason: string) =>
  new Unavailable({ detail: `the database is unavailable (${reason}); try again later` });

/**
 * Runs one `pg` call. A constraint breach fails; a lost connection or a transient conflict dies with a
 * marker the transaction boundary recognises; anything else dies as it is (a bug, HTTP 500).
 */
export const call = <A>(run: () => Promise<A>): Effect.Effect<A, ConstraintBreach> =>
  Effect.tryPromise({ try: run, catch: (error) => error }).pipe(
    Effect.catchAll((error) => {
      const breach = constraintBreachOf(error);
      if (breach !== undefined) return Effect.fail(breach);
      if (isConnectionError(error)) return Effect.die(new DatabaseUnreachable({ reason: reasonOf(error) }));
      if (isTransientConflict(error)) return Effect.die(new TransientConflict({ reason: reasonOf(error) }));
      return Effect.die(error);
    }),
  );

export type Queryable = Pick<pg.Pool | pg.PoolClient, "query">;

/**
 * One statement, or several in one simple query (then the rows are the last one's); `timeoutMs` > 0 bounds
 * the wait for its answer (pg's `query_timeout`). The current fiber's statement observer (tracing) sees each
 * of `texts`, the statements sent with placeholders (never a parameter's value), for the whole round trip.
 * A `name` makes it a prepared statement of each pooled connection (parsed and planned once per connection,
 * for a statement sent often whose planning costs more than its run).
 */
export const statement = (
  server: Omit<ObservedStatement, "text">,
  target: Queryable,
  sql: string,
  params: ReadonlyArray<unknown>,
  timeoutMs: number,
  texts: ReadonlyArray<string> = [sql],
  name?: string,
) =>
  observedAll(
    server,
    texts,
    call(() =>
      target.query({
        ...(name === undefined ? {} : { name }),
        text: sql,
        values: params as Array<unknown>,
        ...(timeoutMs > 0 ? { query_timeout: timeoutMs } : {}),
      } as pg.QueryConfig),
    ),
  ).pipe(
    Effect.map((result) => {
      // pg answers a simple query of several statements with one result each.
      const last = (Array.isArray(result) ? result[result.length - 1] : result) as pg.QueryResult | undefined;
      return (last?.rows ?? []) as ReadonlyArray<Record<string, unknown>>;
    }),
  );

/** The marker defect of a cause, if any: unreachable first (it explains any other failure). */
export const markerOf = (cause: Cause.Cause<unknown>) => {
  const defects = [...Cause.defects(cause)];
  return (
    defects.find((d): d is DatabaseUnreachable => d instanceof DatabaseUnreachable) ??
    defects.find((d): d is TransientConflict => d instanceof TransientConflict)
  );
};

/** The defect of a round trip that failed while carrying a write expected to succeed, if any. */
export const refusalOf = (cause: Cause.Cause<unknown>) =>
  [...Cause.defects(cause)].find((d): d is ExpectedWriteRefused => d instanceof ExpectedWriteRefused);

/** What `refuse_expected_write` raises (src/schema/routines.ts). */
export const isRefusalRaised = (error: unknown) =>
  error instanceof Error &&
  (error as { readonly code?: unknown }).code === "P0001" &&
  error.message.startsWith("expected write refused");

/**
 * A round trip of `parts`: when one of them is a write expected to succeed, its refusal (a constraint breach
 * or `refuse_expected_write`, of whichever statement: all of them stand before COMMIT) becomes the
 * ExpectedWriteRefused defect, so that the transaction runs again. Any other error keeps its own handling.
 */
export const expecting = <A, E>(parts: ReadonlyArray<Part>, roundTrip: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  parts.some((part) => part.expected === true)
    ? Effect.catchAllCause(roundTrip, (cause) => {
        const breach = [...Cause.failures(cause)].find((e) => e instanceof ConstraintBreach);
        const raised = [...Cause.defects(cause)].find(isRefusalRaised);
        return breach === undefined && raised === undefined
          ? Effect.failCause(cause)
          : Effect.die(new ExpectedWriteRefused({ reason: breach?.constraint ?? (raised as Error).message }));
      })
    : roundTrip;

/** Turns the "database unreachable" defect of `effect` into the domain's typed Unavailable. */
export const surfaceUnavailable = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Unavailable, R> =>
  Effect.catchAllCause(effect, (cause): Effect.Effect<never, E | Unavailable> => {
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause);
    const marker = markerOf(cause);
    if (marker instanceof DatabaseUnreachable) return Effect.fail(unavailable(marker.reason));
    if (marker instanceof TransientConflict) return Effect.fail(unavailable(`conflict ${marker.reason} persisted`));
    return Effect.failCause(cause);
  });

/** Serialises the operations of one transaction: they share one connection and their savepoints nest. */
export const serialised = (tx: StorageTx, lock: Effect.Semaphore): StorageTx =>
  Object.fromEntries(
    Object.entries(tx).map(([name, op]) => [
      name,
      (...args: Array<unknown>) =>
        lock.withPermits(1)((op as (...a: Array<unknown>) => Effect.Effect<unknown>)(...args)),
    ]),
  ) as unknown as StorageTx;

/** Fails the use of a transaction's operations once the transaction has ended (a leaked fiber). */
export const guardClosed = (tx: StorageTx, isOpen: () => boolean): StorageTx =>
  Object.fromEntries(
    Object.entries(tx).map(([name, op]) => [
      name,
      (...args: Array<unknown>) =>
        Effect.suspend(() =>
          isOpen()
            ? (op as (...a: Array<unknown>) => Effect.Effect<unknown>)(...args)
            : Effect.dieMessage(`StorageTx.${name} used after its transaction ended`),
        ),
    ]),
  ) as unknown as StorageTx;
