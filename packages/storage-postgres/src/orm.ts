import { Migrator } from "@mikro-orm/migrations";
import { MikroORM, type Options } from "@mikro-orm/postgresql";
import pg from "pg";
import { MIGRATIONS } from "./migrations/index.js";
import { ENTITIES } from "./schema/entities.js";

/** How the adapter connects: see `PostgresStorageOptions` for the meaning of each field. */
export interface OrmOptions {
  readonly url: string;
  readonly poolSize: number;
  readonly connectTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly onStatement?: ((sql: string) => void) | undefined;
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
  extensions: [Migrator],
  // The adapter never creates databases behind the operator's back, and connects lazily.
  ensureDatabase: false,
  allowGlobalContext: true,
  debug: false,
  pool: { min: 0, max: options.poolSize, idleTimeoutMillis: options.idleTimeoutMs },
  driverOptions: {
    // Waiting longer than this for a connection (new or from a full pool) fails the request as Unavailable.
    connectionTimeoutMillis: options.connectTimeoutMs,
    ...(options.onStatement === undefined ? {} : { Client: countingClient(options.onStatement) }),
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
