import { ServerGraphCache } from "./read-cache/server-graph-cache.js";
import type { Unavailable } from "@mcpsm/domain/errors";
import { type ServerGraph, Storage, type StorageTx } from "@mcpsm/domain/storage";
import type { MikroORM } from "@mikro-orm/postgresql";
import { Cause, Effect, Exit, Layer } from "effect";
import type { Duplex } from "node:stream";
import type pg from "pg";
import { initOrm, poolOf, runMigrations } from "./orm.js";
import { serverGraphKey, withCachedPointReads } from "./read-cache/cached-point-reads.js";
import { type ChangeListener, listenForChanges } from "./read-cache/change-listener.js";
import { MatchCountCache } from "./read-cache/match-count-cache.js";
import { PointReadCache, type PointReadCacheOptions } from "./read-cache/point-read-cache.js";
import { DatabaseUnreachable, TransientConflict } from "./sql/db-errors.js";
import { inlineParams } from "./sql/inline-params.js";
import { observed, statementTarget } from "./sql/statement-observer.js";
import { statementName } from "./sql/statement-name.js";
import { executePart, forgetMissing, withPrepares } from "./sql/sql-prepared.js";
import { describeTables } from "./table/tables.js";
import { prepareStorageTx } from "./tx/storage-tx.js";
import { postgresCallLog } from "./tx/tool-calls.js";
import type { Runner } from "./tx/runner.js";
import {
  BEGIN,
  COMMIT,
  PLAIN_COMMIT,
  type Part,
  type Queryable,
  RELEASE,
  SAVEPOINT,
  call,
  expecting,
  guardClosed,
  markerOf,
  refusalOf,
  serialised,
  statement,
  surfaceUnavailable,
} from "./tx/round-trip.js";

/** How to reach the database, and how hard to try. */
export interface PostgresStorageOptions {
  /** A `postgres://user:password@host:port/database` URL. */
  readonly url: string;
  /** Connections in the pool (default 10). Use 1 for the embedded server (see `startEmbeddedPostgres`). */
  readonly poolSize?: number;
  /**
   * How long a request waits for a connection, new or from a full pool, before it fails with
   * Unavailable (default 5,000 ms).
   */
  readonly connectTimeoutMs?: number;
  /** How long an idle pooled connection is kept (default 10,000 ms; 0 keeps it until it breaks). */
  readonly idleTimeoutMs?: number;
  /**
   * How long a statement of a request may go without an answer before its connection is given up and the
   * request fails with Unavailable (default 30,000 ms; 0: no limit). A database that stops answering
   * without closing the connection (a network partition) must not hold requests forever. Migrations are
   * not limited.
   */
  readonly queryTimeoutMs?: number;
  /** Attempts of a transaction that hits a deadlock or serialization failure (default 3). */
  readonly maxTransactionAttempts?: number;
  /**
   * Called with the text of every SQL statement sent to the server (BEGIN and COMMIT included): a
   * driver-level hook for tracing, and for tests that count round trips.
   */
  readonly onStatement?: (sql: string) => void;
  /** Makes each connection's stream instead of a TCP socket to `url` (the embedded database in this process). */
  readonly stream?: (() => Duplex) | undefined;
  /**
   * Keeps the hot point reads of `read` (a server, its graph, a provider, a server token by hash) between
   * requests, dropping them all whenever a change is committed: by this instance as its COMMIT returns,
   * by any other as its change notification arrives (LISTEN on a connection of its own; while that
   * connection is down nothing is served from the cache), and after `maxAgeMs` while its pings are not heard
   * back. `listen: false` when no other process writes the database (the embedded server): every change is
   * then one of this instance's commits, and an entry is served until the next one. Off by default.
   */
  readonly readCache?: (PointReadCacheOptions & { readonly listen?: boolean }) | undefined;
  /** Whether COMMIT notifies other instances' read caches (default true); false: no other process uses it. */
  readonly notifyChanges?: boolean | undefined;
}

/** A PostgreSQL-backed implementation of the storage port, and what it takes to run it. */
export interface PostgresStorage {
  /** The storage port, and the read cache's `cachedServerGraph` when the cache is on. */
  readonly storage: typeof Storage.Service & Partial<typeof ServerGraphCache.Service>;
  /**
   * The storage port as a layer, with the `ServerGraphCache` beside it when the read cache is on (the handle
   * stays owned by the caller: `close` it when done).
   */
  readonly layer: Layer.Layer<Storage>;
  /**
   * Applies the committed migrations that have not run yet; answers their names. Instances migrating
   * the same server at once take turns (an advisory lock) unless the pool has a single connection.
   */
  readonly migrate: () => Promise<ReadonlyArray<string>>;
  /** The committed migrations that have not run yet. */
  readonly pendingMigrations: () => Promise<ReadonlyArray<string>>;
  /** Succeeds when the database answers a trivial query (for readiness probes). */
  readonly ping: Effect.Effect<void, Unavailable>;
  /** The MikroORM instance holding the mapping and the connection pool (schema tools, diagnostics). */
  readonly orm: MikroORM;
  /** The point-read cache, when `readCache` turned it on (its counters are for tests and diagnostics). */
  readonly readCache: PointReadCache | undefined;
  /** The remembered match counts of filtered provider listings (always on: each use is checked; counters for tests). */
  readonly matchCounts: MatchCountCache;
  /** Closes the pool. The storage must not be used afterwards. */
  readonly close: () => Promise<void>;
}

/**
 * Creates the PostgreSQL storage: the MikroORM instance with the mapping and the migrations, and a pool
 * that connects lazily (so this succeeds while the database is down; requests then fail with Unavailable
 * until it is back). Run `migrate()` before the first request on a new database.
 */
export const makePostgresStorage = async (options: PostgresStorageOptions): Promise<PostgresStorage> => {
  const poolSize = Math.max(1, options.poolSize ?? 10);
  const orm = await initOrm({
    url: options.url,
    poolSize,
    connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 10_000,
    onStatement: options.onStatement,
    stream: options.stream,
  });
  const pool = await poolOf(orm);
  // The statements are derived from the mapping once; a mapping that disagrees with the domain's row
  // schemas stops here.
  const makeStorageTx = prepareStorageTx(describeTables(orm.getMetadata()));
  const maxAttempts = Math.max(1, options.maxTransactionAttempts ?? 3);
  const queryTimeoutMs = Math.max(0, options.queryTimeoutMs ?? 30_000);
  const server = statementTarget(options.url);
  const nameIf = (prepared: boolean | undefined, sql: string) => (prepared === true ? statementName(sql) : undefined);
  const send = (
    target: Queryable,
    sql: string,
    params: ReadonlyArray<unknown> = [],
    texts?: ReadonlyArray<string>,
    name?: string,
  ) => statement(server, target, sql, params, queryTimeoutMs, texts, name);
  const cacheOptions = options.readCache;
  // `listen: false`: no other process writes the database, so every change is one of this instance's commits.
  const soleWriter = cacheOptions?.listen === false;
  const readCache =
    cacheOptions === undefined ? undefined : new PointReadCache({ ...cacheOptions, trusted: soleWriter, soleWriter });
  const changeListener: ChangeListener | undefined =
    readCache === undefined || cacheOptions?.listen === false
      ? undefined
      : listenForChanges(options.url, {
          onChange: () => readCache.changed(),
          onListening: (listening) => readCache.setTrusted(listening),
          onHeard: (sentAt) => readCache.heard(sentAt),
          ...(cacheOptions?.now === undefined ? {} : { now: cacheOptions.now }),
        });

  /** Statements outside a transaction: each takes a pooled connection for itself. */
  const matchCounts = new MatchCountCache();
  const poolRunner: Runner = {
    rows: (sql, params, prepared) => send(pool, sql, params, undefined, nameIf(prepared, sql)),
    readAhead: (sql, params, prepared) => Effect.orDie(send(pool, sql, params, undefined, nameIf(prepared, sql))),
    guarded: (write) => write,
    matchCounts,
    deferred: (sql, params) => Effect.asVoid(Effect.orDie(send(pool, sql, params))),
    expect: () => Effect.succeed(false),
  };

  /**
   * A transaction's state: its connection is taken when its first statement is sent (`clientOf`), so reads
   * ahead of it (`Runner.readAhead`) hold none; BEGIN goes with that first statement (see `sendInTx`).
   */
  const begin = Effect.sync(() => ({
    client: undefined as pg.PoolClient | undefined,
    committed: false,
    begun: false,
    // Statements (with their parameters written in) waiting for the next round trip, and their texts with
    // placeholders for the statement observer.
    pending: [] as Array<Part>,
  }));
  type Conn = Effect.Effect.Success<typeof begin>;

  /** The transaction's connection, taken on first use; uninterruptibly, so that `end` always gives it back. */
  const clientOf = (conn: Conn) =>
    Effect.suspend(() =>
      conn.client !== undefined
        ? Effect.succeed(conn.client)
        : Effect.uninterruptible(
            Effect.map(Effect.orDie(call(() => pool.connect())), (client) => {
              conn.client = client;
              return client;
            }),
          ),
    );

  /**
   * Sends `parts` as one simple query (the observer sees each of their texts with placeholders), with the
   * `prepare` of each `execute` the connection has not seen yet just ahead of it.
   */
  const joined = (client: pg.PoolClient, parts: ReadonlyArray<Part>) => {
    const { sent, known, executed } = withPrepares(client, parts);
    const roundTrip = expecting(
      parts,
      send(
        client,
        sent.map((part) => part.sql).join(";\n"),
        [],
        sent.map((part) => part.text),
      ),
    );
    return executed.length === 0 ? roundTrip : forgetMissing(roundTrip, known, executed);
  };

  /**
   * Sends `sql` in the transaction on `conn`, with what waits for the next round trip ahead of it in one
   * simple query: BEGIN, deferred statements (an advisory lock, a savepoint, the audit event). BEGIN goes
   * alone only ahead of a named statement (`prepared`: its plan is kept per connection, which a simple query
   * cannot use); a transaction's first plain read carries it (one round trip less: on the embedded store each
   * is a message to the database's thread and back). A statement whose parameters cannot be written into its
   * text goes alone after the others.
   */
  const sendInTx = (conn: Conn, sql: string, params: ReadonlyArray<unknown> = [], prepared = false) =>
    Effect.flatMap(clientOf(conn), (client) => {
      const ahead = [...(conn.begun ? [] : [BEGIN]), ...conn.pending];
      conn.pending = [];
      conn.begun = true;
      const name = nameIf(prepared, sql);
      if (ahead.length === 0) return send(client, sql, params, undefined, name);
      const inlined = prepared && ahead.length === 1 && ahead[0] === BEGIN ? undefined : inlineParams(sql, params);
      return inlined === undefined
        ? Effect.zipRight(Effect.orDie(joined(client, ahead)), send(client, sql, params, undefined, name))
        : joined(client, [...ahead, { sql: inlined, text: sql }]);
    });

  /** A lock-free read (`Runner.readAhead`): on the pool while the transaction has sent and queued nothing. */
  const readAhead = (conn: Conn, sql: string, params: ReadonlyArray<unknown>, prepared: boolean) =>
    Effect.suspend(() =>
      Effect.orDie(
        !conn.begun && conn.pending.length === 0
          ? send(pool, sql, params, undefined, nameIf(prepared, sql))
          : sendInTx(conn, sql, params, prepared),
      ),
    );

  /** Queues `sql` for the transaction's next round trip, or sends it at once when it cannot wait. */
  const defer = (conn: Conn, sql: string, params: ReadonlyArray<unknown> = []) =>
    Effect.suspend(() => {
      const inlined = inlineParams(sql, params);
      if (inlined === undefined) return Effect.asVoid(Effect.orDie(sendInTx(conn, sql, params)));
      conn.pending.push({ sql: inlined, text: sql });
      return Effect.void;
    });

  /**
   * Gives the connection back. A transaction that did not commit (its work failed, died or was
   * interrupted, or COMMIT failed) is rolled back first; a connection that cannot even do that is dropped,
   * and so is one that was lost or stopped answering (no ROLLBACK to wait for: the server rolls back an
   * open transaction when its connection closes).
   */
  const end = (conn: Conn, exit: Exit.Exit<unknown, unknown>) => {
    const { client } = conn;
    // No connection taken: nothing to give back.
    if (client === undefined) return Effect.void;
    // Nothing sent: no transaction on the server to end.
    if (conn.committed || !conn.begun) return Effect.sync(() => client.release());
    const lost = Exit.isFailure(exit) ? markerOf(exit.cause) : undefined;
    if (lost instanceof DatabaseUnreachable)
      return Effect.sync(() => client.release(new Error(`connection dropped: ${lost.reason}`)));
    return observed(
      server,
      "rollback",
      Effect.promise(() =>
        client
          .query({
            text: "rollback",
            ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {}),
          } as pg.QueryConfig)
          .then(
            () => client.release(),
            (error: Error) => client.release(error),
          ),
      ),
    );
  };

  // The transactions this instance committed, or may have: a COMMIT whose answer was lost counts too.
  let commits = 0;
  const noteCommit = () => {
    commits++;
    readCache?.changed();
  };
  const changed = Effect.sync(noteCommit);
  const commit = options.notifyChanges === false ? PLAIN_COMMIT : COMMIT;

  /** One run of `work` in a transaction; `mayExpect`: whether writes expected to succeed may be queued. */
  const attempt = <A, E, R>(work: (tx: StorageTx) => Effect.Effect<A, E, R>, mayExpect: boolean) =>
    Effect.acquireUseRelease(
      begin,
      (conn) =>
        Effect.gen(function* () {
          const lock = yield* Effect.makeSemaphore(1);
          let open = true;
          const runner: Runner = {
            rows: (sql, params, prepared) => sendInTx(conn, sql, params, prepared),
            readAhead: (sql, params, prepared) => readAhead(conn, sql, params, prepared),
            // A savepoint around a write that may breach a constraint: the breach undoes the write only. The
            // savepoint travels with the write's first statement, its release (or rollback) with the next.
            guarded: (write) =>
              Effect.gen(function* () {
                const savepoint = { sql: SAVEPOINT, text: SAVEPOINT };
                conn.pending.push(savepoint);
                const result = yield* Effect.either(write);
                // A write that sent nothing leaves its savepoint waiting: it is dropped, never sent.
                const unsent = conn.pending.at(-1) === savepoint;
                if (unsent) conn.pending.pop();
                else if (result._tag === "Left")
                  conn.pending.push(
                    { sql: "rollback to savepoint breach_guard", text: "rollback to savepoint breach_guard" },
                    RELEASE,
                  );
                else conn.pending.push(RELEASE);
                return yield* result;
              }),
            deferred: (sql, params) => defer(conn, sql, params),
            expect: (sql, params = [], prepared = false) =>
              Effect.sync(() => {
                if (!mayExpect) return false;
                if (prepared) {
                  const part = executePart(sql, params, true);
                  if (part !== undefined) conn.pending.push(part);
                  return part !== undefined;
                }
                const inlined = inlineParams(sql, params);
                if (inlined === undefined) return false;
                conn.pending.push({ sql: inlined, text: sql, expected: true });
                return true;
              }),
          };
          const tx = guardClosed(serialised(makeStorageTx(runner), lock), () => open);
          const value = yield* work(tx).pipe(Effect.ensuring(Effect.sync(() => (open = false))));
          // Every instance on the database hears of the change (its point-read cache drops what it read).
          // What still waits goes with COMMIT; a transaction that sent nothing has nothing to commit.
          if (conn.begun || conn.pending.length > 0) {
            const parts = [...(conn.begun ? [] : [BEGIN]), ...conn.pending, commit];
            conn.pending = [];
            conn.begun = true;
            // This instance's own reads after the COMMIT see the change at once, before its notification
            // arrives. Dropped whatever COMMIT answered: a COMMIT that failed or was cut off may still have
            // committed. A transaction that never sent COMMIT (its work failed: rolled back) changed nothing.
            const client = yield* clientOf(conn);
            yield* Effect.orDie(joined(client, parts)).pipe(Effect.ensuring(changed));
          }
          conn.committed = true;
          return value;
        }),
      end,
    );

  const transaction = <A, E, R>(
    work: (tx: StorageTx) => Effect.Effect<A, E, R>,
  ): Effect.Effect<A, E | Unavailable, R> => {
    // A write expected to succeed that did not (a taken name, a full quota) runs the transaction again with
    // none expected, so that the work reads the write's real answer (and answers as it always did).
    const run = (left: number, mayExpect: boolean): Effect.Effect<A, E, R> =>
      attempt(work, mayExpect).pipe(
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause);
          if (left > 1 && markerOf(cause) instanceof TransientConflict) return run(left - 1, mayExpect);
          if (mayExpect && refusalOf(cause) !== undefined) return run(left, false);
          return Effect.failCause(cause);
        }),
      );
    return surfaceUnavailable(run(maxAttempts, true));
  };

  // A read's operations hold no state of their own (each statement takes a pooled connection): one set,
  // built once, serves every read. Built per read, its ~200 closures were garbage on every MCP call.
  const poolTx = makeStorageTx(poolRunner);
  const readTx = readCache === undefined ? poolTx : withCachedPointReads(poolTx, readCache);
  const read = <A, E, R>(work: (tx: StorageTx) => Effect.Effect<A, E, R>): Effect.Effect<A, E | Unavailable, R> =>
    surfaceUnavailable(Effect.suspend(() => work(readTx)));

  const graphCache: typeof ServerGraphCache.Service | undefined =
    readCache === undefined
      ? undefined
      : { cachedServerGraph: (id: string) => readCache.peek(serverGraphKey(id)) as ServerGraph | undefined };
  const calls = postgresCallLog((sql, params, name) =>
    surfaceUnavailable(Effect.orDie(send(pool, sql, params, undefined, name))),
  );
  // The change stamp is the read cache's: it moves when this instance commits and when another's commit is
  // heard. Without a cache, a database no other process uses (`notifyChanges: false`, the embedded one) has
  // no other commits to hear: the count of this instance's own is exact. A stamp is taken before the reads it
  // vouches for, and moves only once a COMMIT has returned: a read stamped after the move began after the
  // commit, and sees it.
  const changeStamp =
    readCache !== undefined ? () => readCache.stamp() : options.notifyChanges === false ? () => commits : undefined;
  const storage = { transaction, read, calls, changeStamp, ...graphCache };

  return {
    storage,
    layer:
      graphCache === undefined
        ? Layer.succeed(Storage, storage)
        : Layer.merge(Layer.succeed(Storage, storage), Layer.succeed(ServerGraphCache, graphCache)),
    // Migrations commit outside `transaction`: the stamp moves after them too (whatever they answered).
    migrate: () => runMigrations(orm, poolSize > 1).finally(noteCommit),
    pendingMigrations: async () => (await orm.migrator.getPending()).map((m) => m.name),
    ping: surfaceUnavailable(Effect.orDie(send(pool, "select 1"))),
    orm,
    readCache,
    matchCounts,
    close: async () => {
      await changeListener?.close();
      await orm.close(true);
    },
  };
};
