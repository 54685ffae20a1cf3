import { Cause, Effect } from "effect";
import type pg from "pg";
import type { Part } from "../tx/round-trip.js";
import { TransientConflict } from "./db-errors.js";
import { literalsOf } from "./inline-params.js";
import { statementName } from "./statement-name.js";

// Statements prepared by SQL (`prepare` / `execute`) for the writes that travel in a simple query, which cannot
// use the protocol's named statements: planned once per connection while PostgreSQL keeps the generic plan,
// instead of on every round trip (the server insert's planning was ~1.5 ms of its ~4 ms: docs/performance.md).

/** The names each session has prepared by SQL (they last as long as the session). */
const prepared = new WeakMap<object, Set<string>>();

/**
 * The session `client` runs in: its own, or the embedded database's one PGlite session its in-process
 * connections share (their stream names it: embedded-stream.ts), so that one connection's `prepare` serves the
 * others and none prepares a name twice.
 */
const sessionOf = (client: pg.PoolClient): object =>
  (client as unknown as { readonly connection?: { readonly stream?: { readonly session?: object } } }).connection
    ?.stream?.session ?? client;

/**
 * `parts` with the `prepare` of each `execute` that `client`'s session has not prepared yet just ahead of it
 * (counted as prepared from now on: see `forgetMissing`); the names the session has prepared; the names `parts`
 * execute.
 */
export const withPrepares = (client: pg.PoolClient, parts: ReadonlyArray<Part>) => {
  const session = sessionOf(client);
  let known = prepared.get(session);
  if (known === undefined) {
    known = new Set();
    prepared.set(session, known);
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

/** The SQLSTATE of a defect of `cause` among `codes`, if any. */
const stateOf = (cause: Cause.Cause<unknown>, codes: ReadonlyArray<string>) =>
  [...Cause.defects(cause)]
    .map((defect) => (typeof defect === "object" && defect !== null ? (defect as { code?: unknown }).code : undefined))
    .find((code): code is string => typeof code === "string" && codes.includes(code));

/**
 * A round trip executing `names` on a connection whose `known` names were counted as prepared when their
 * `prepare` was sent: if that round trip stopped before its `prepare` ran, an `execute` meets no statement
 * (26000); the names are forgotten (prepared again next time) and the transaction runs again (a transient
 * conflict). On a shared session a `prepare` may also meet the name prepared already (42P05: another
 * connection's `prepare` ran after this one's `execute` had failed and made it forget): it is there, so the
 * transaction runs again without preparing it.
 */
export const forgetMissing = <A, E>(
  roundTrip: Effect.Effect<A, E>,
  known: Set<string>,
  names: ReadonlyArray<string>,
): Effect.Effect<A, E> =>
  Effect.catchAllCause(roundTrip, (cause) => {
    const state = stateOf(cause, ["26000", "42P05"]);
    if (state === undefined) return Effect.failCause(cause);
    if (state === "26000") for (const name of names) known.delete(name);
    return Effect.die(new TransientConflict({ reason: "a statement prepared by SQL was missing or there already" }));
  });
