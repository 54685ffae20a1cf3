import { Migrator } from "@mikro-orm/migrations";
import { MikroORM, type Options } from "@mikro-orm/postgresql";
import type { Duplex } from "node:stream";
import pg from "pg";
import { MIGRATIONS } from "./migrations/index.js";
import { ENTITIES } from "./schema/entities.js";
import { ROUTINES } from "./schema/routines.js";

/** How the adapter connects: see `PostgresStorageOptions` for the meaning of each field. */
export interface OrmOptions {
  readonly url: string;
  readonly poolSize: number;
  readonly connectTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly onStatement?: ((sql: string) => void) | undefined;
  readonly stream?: (() => Duplex) | undefined;
}

/**
 * A `pg` client class that reports every statement it sends: a driver-level hook below everything the
 * adapter and MikroORM do, used to observe (and in tests, count) round trips.
 */
const countingClient = (onStatement: (sql: string) => void): typeof pg.Client =>
  class CountingClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this forwards all of them.
    override query(...args: Array<any>): any {
      const first = args[0];
      const text = typeof first === "string" ? first : typeof first?.text === "string" ? first.text : undefined;
      if (text !== undefined) onStatement(text);
      return (super.query as (...a: Array<unknown>) => unknown)(...args);
    }
  } as typeof pg.Client;

/** The MikroORM configuration of the adapter: the mapping, the committed migrations and the pool. */
export const ormConfig = (options: OrmOptions): Options => ({
  clientUrl: options.url,
  entities: [...ENTITIES],
  routines: [...ROUTINES],
  extensions: [Migrator],
  // The adapter never creates databases behind the operator's back, and connects lazily.
  ensureDatabase: false,
  debug: false,
  pool: { min: 0, max: options.poolSize, idleTimeoutMillis: options.idleTimeoutMs },
  driverOptions: {
    // Waiting longer than this for a connection (new or from a full pool) fails the request as Unavailable.
    connectionTimeoutMillis: options.connectTimeoutMs,
    ...(options.onStatement === undefined ? {} : { Client: countingClient(options.onStatement) }),
    ...(options.stream === undefined ? {} : { stream: options.stream }),
  },
  migrations: {
    migrationsList: [...MIGRATIONS],
    tableName: "mikro_orm_migrations",
    transactional: true,
    allOrNothing: true,
    snapshot: false,
    silent: true,
  },
  discovery: { warnWhenNoEntities: true },
});

/** Creates the ORM (no connection is made until the first query). */
export const initOrm = (options: OrmOptions) => MikroORM.init(ormConfig(options));

/** The pg pool MikroORM built for its connection (creating it opens no connection yet). */
export const poolOf = async (orm: MikroORM): Promise<pg.Pool> =>
  (await orm.em.getConnection().getNativeClient()) as pg.Pool;

/** An arbitrary, fixed key of the session-level advisory lock that serialises migration runs. */
const MIGRATION_LOCK_KEY = 4_207_001_117;

/**
 * Applies the pending migrations and answers their names. With `exclusive`, the run holds an advisory
 * lock on a connection of its own, so that instances starting together migrate one after the other (the
 * later ones find nothing left to do) instead of racing on `create table`. That needs a second pooled
 * connection, so it is off with a pool of one. (The embedded server's in-process connections share one
 * session, where the lock excludes nothing and waits for nothing: harmless there, one process migrates it.)
 */
export const runMigrations = async (orm: MikroORM, exclusive: boolean): Promise<ReadonlyArray<string>> => {
  const up = async () => (await orm.migrator.up()).map((m) => m.name);
  if (!exclusive) return up();
  const client = await (await poolOf(orm)).connect();
  let broken: Error | undefined;
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      return await up();
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch((error: Error) => {
        broken = error;
      });
    }
  } catch (error) {
    broken ??= error as Error;
    throw error;
  } finally {
    client.release(broken);
  }
};
