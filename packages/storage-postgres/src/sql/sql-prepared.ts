import { Cause, Effect } from "effect";
import type pg from "pg";
import type { Part } from "../tx/round-trip.js";
import { TransientConflict } from "./db-errors.js";
import { literalsOf } from "./inline-params.js";
import { statementName } from "./statement-name.js";

// Statements prepared by SQL (`prepare` / `execute`) for the writes that travel in a simple query, which cannot
// use the protocol's named statements: planned once per connection while PostgreSQL keeps the generic plan,
// instead of on every round trip (the server insert's planning was ~1.5 ms of its ~4 ms: docs/performance.md).

/** The names each connection's session has prepared by SQL (they last as long as the session). */
const prepared = new WeakMap<pg.PoolClient, Set<string>>();

/**
 * `parts` with the `prepare` of each `execute` that `client` has not prepared yet just ahead of it (counted
 * as prepared from now on: see `forgetMissing`); the names `client` has prepared; the names `parts` execute.
 */
export const withPrepares = (client: pg.PoolClient, parts: ReadonlyArray<Part>) => {
  let known = prepared.get(client);
  if (known === undefined) {
    known = new Set();
    prepared.set(client, known);
  }
  const sent: Array<Part> = [];
  const executed: Array<string> = [];
  for (const part of parts) {
    const { prepare } = part;
    if (prepare !== undefined) {
      executed.push(prepare.name);
      if (!known.has(prepare.name)) {
        const text = `prepare ${prepare.name} as ${prepare.sql}`;
        sent.push({ sql: text, text });
        known.add(prepare.name);
      }
    }
    sent.push(part);
  }
  return { sent, known, executed };
};

/**
 * `sql` with `params` as a part of a simple query: `execute` of the statement prepared by SQL under a name of
 * its own (not the protocol's name for the same text: both live in one namespace of the session), its
 * arguments quoted literals, as `inlineParams` writes them. Undefined when a parameter has no safe text form.
 */
export const executePart = (sql: string, params: ReadonlyArray<unknown>, expected: boolean): Part | undefined => {
  const literals = literalsOf(params);
  if (literals === undefined) return undefined;
  const name = `${statementName(sql)}_sql`;
  return {
    sql: literals.length === 0 ? `execute ${name}` : `execute ${name}(${literals.join(", ")})`,
    text: sql,
    expected,
    prepare: { name, sql },
  };
};

/** Whether a round trip failed because a statement it executed was not prepared (SQLSTATE 26000). */
const missedPrepared = (cause: Cause.Cause<unknown>) =>
  [...Cause.defects(cause)].some(
    (defect) => typeof defect === "object" && defect !== null && (defect as { code?: unknown }).code === "26000",
  );

/**
 * A round trip executing `names` on a connection whose `known` names were counted as prepared when their
 * `prepare` was sent: if that round trip stopped before its `prepare` ran, an `execute` meets no statement;
 * the names are forgotten (prepared again next time) and the transaction runs again (a transient conflict).
 */
export const forgetMissing = <A, E>(
  roundTrip: Effect.Effect<A, E>,
  known: Set<string>,
  names: ReadonlyArray<string>,
): Effect.Effect<A, E> =>
  Effect.catchAllCause(roundTrip, (cause) => {
    if (!missedPrepared(cause)) return Effect.failCause(cause);
    for (const name of names) known.delete(name);
    return Effect.die(new TransientConflict({ reason: "a statement prepared by SQL was missing" }));
  });
