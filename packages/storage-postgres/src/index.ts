/**
 * @mcpsm/storage-postgres: the PostgreSQL implementation of the @mcpsm/domain storage port.
 *
 * - `makePostgresStorage({ url, ... })` builds the adapter (MikroORM 7 + `pg` pool) with `storage`, a
 *   `layer`, `migrate()`, `ping` and `close()`.
 * - `migrate({ url })` applies the committed migrations on its own connection.
 * - `currentStatementObserver`: the fiber ref through which a caller observes the statements a run sends
 *   (tracing: a span per statement).
 * - `startEmbeddedPostgres(dataDir)` runs PGlite behind a loopback socket for single-process installs
 *   (use its `storageOptions`: in-process connections sharing its one session).
 *
 * The schema (constraints, cascades, indexes) lives in the database; `ENTITIES` is its MikroORM mapping, the
 * one description of each table: `MIGRATIONS` (the committed migrations that produce it) are generated from
 * it, and the adapter's SQL statements are derived from its metadata.
 */
export { makePostgresStorage, type PostgresStorage, type PostgresStorageOptions } from "./postgres-storage.js";
export { ServerGraphCache } from "./read-cache/server-graph-cache.js";
export { migrate } from "./migrate.js";
export {
  currentStatementObserver,
  type ObservedStatement,
  type StatementObserver,
} from "./sql/statement-observer.js";
export { type EmbeddedPostgres, startEmbeddedPostgres } from "./embedded.js";
export { ENTITIES } from "./schema/entities.js";
export { MIGRATIONS } from "./migrations/index.js";
