import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Storage } from "@mcpsm/domain/storage";
import { type EmbeddedPostgres, makePostgresStorage, startEmbeddedPostgres } from "@mcpsm/storage-postgres";
import { Effect, Either, type Layer } from "effect";
import type { Logger } from "pino";
import { type DatabaseConfig, redactedUrl } from "../config/database-config.js";
import { collectAllGarbage } from "../launcher/memory-reducing-collection.js";
import { createEmbeddedDatabase } from "./create-embedded-database.js";
import type { ReadCacheCounters } from "../operations/cache-metrics.js";

/** An open store: its layer, a readiness probe and how to release it. */
export interface OpenedStorage {
  readonly layer: Layer.Layer<Storage>;
  readonly ready: () => Promise<boolean>;
  readonly close: () => Promise<void>;
  /** The point-read cache's counters, when the store keeps one (metrics). */
  readonly readCacheCounters: () => ReadCacheCounters | undefined;
}

/** Where the embedded database keeps its files inside DATA_DIR. */
export const embeddedDataDir = (dataDir: string) => join(dataDir, "pgdata");

const BACKOFF_START_MS = 250;
const BACKOFF_MAX_MS = 10_000;

/**
 * Runs `attempt` until it succeeds, waiting 0.25 s, 0.5 s, 1 s … (at most 10 s) between tries and logging
 * each failure: a database that is still starting must not crash the service. `stopped()` ends the wait.
 */
export const retryWithBackoff = async <A>(
  what: string,
  attempt: () => Promise<A>,
  logger: Logger,
  stopped: () => boolean = () => false,
): Promise<A> => {
  for (let n = 1, delay = BACKOFF_START_MS; ; n++, delay = Math.min(delay * 2, BACKOFF_MAX_MS)) {
    try {
      return await attempt();
    } catch (error) {
      if (stopped()) throw error;
      logger.warn({ attempt: n, retryInMs: delay, reason: (error as Error).message }, `${what} failed; retrying`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
};

/** The schema is behind the code and migrating at start-up is turned off: the service must not start. */
export class PendingMigrations extends Error {
  constructor(readonly pending: ReadonlyArray<string>) {
    super(
      `the database schema is not up to date (pending migrations: ${pending.join(", ")}); run the migrate command, or let the service migrate (DATABASE_MIGRATE_ON_START=true)`,
    );
  }
}

/**
 * Opens the configured store: the embedded PostgreSQL (PGlite, persisted in DATA_DIR) by default, or the
 * server of DATABASE_URL; waits for it and applies migrations unless that is turned off. Then it fails with
 * PendingMigrations if any are pending: serving on a schema that is behind would answer 500 to every
 * request while /readyz says ready.
 */
export const openStorage = async (config: DatabaseConfig, dataDir: string, logger: Logger): Promise<OpenedStorage> => {
  // A new embedded database is created and migrated by a child process (create-embedded-database.ts says
  // why); this process then opens it as on a restart.
  const pgDataDir = embeddedDataDir(dataDir);
  const created =
    config.mode === "embedded" && config.migrateOnStart && !existsSync(join(pgDataDir, "PG_VERSION"))
      ? await createEmbeddedDatabase(pgDataDir)
      : undefined;
  let opened: Opened | undefined = await open(config, dataDir, logger);
  if (created !== undefined)
    logger.info(
      { applied: created.length, by: "child process" },
      "storage: embedded database reopened after migrating",
    );
  if (config.migrateOnStart) {
    const applied = await applyMigrations(opened, logger);
    if (opened.embedded !== undefined && applied.length > 0) {
      // PGlite's WebAssembly memory grows to what a session touched and is never given back; creating a
      // schema touches far more than serving does (fresh DATA_DIR idle RSS, docs/performance.md). Reopening
      // the database drops that memory with the instance that grew it: once nothing references the closed
      // instance, a collection frees it (and its compiled PostgreSQL code) before the next one opens.
      await closeAll(opened);
      opened = undefined;
      collectAllGarbage();
      opened = await open(config, dataDir, logger);
      logger.info({ applied: applied.length }, "storage: embedded database reopened after migrating");
    }
  } else {
    const pending = await pendingMigrations(opened, logger);
    if (pending.length > 0) {
      await closeAll(opened);
      throw new PendingMigrations(pending);
    }
  }
  const store = opened;
  const { postgres, ping } = store;
  return {
    layer: postgres.layer,
    readCacheCounters: () => postgres.readCache,
    ready: () =>
      ping().then(
        () => true,
        () => false,
      ),
    close: () => closeAll(store),
  };
};

// Separate functions, so that no closure of `openStorage` keeps a store it closed alive.
const applyMigrations = (opened: Opened, logger: Logger) =>
  retryWithBackoff("applying migrations", () => opened.postgres.migrate(), logger);
const pendingMigrations = (opened: Opened, logger: Logger) =>
  retryWithBackoff("reading the applied migrations", () => opened.postgres.pendingMigrations(), logger);

/** The store's adapter, the embedded database under it (if any) and a probe that throws when it is down. */
interface Opened {
  readonly postgres: Awaited<ReturnType<typeof makePostgresStorage>>;
  readonly embedded: EmbeddedPostgres | undefined;
  readonly ping: () => Promise<void>;
}

/** Starts the embedded database (or points at the server) and waits until the adapter reaches it. */
const open = async (config: DatabaseConfig, dataDir: string, logger: Logger): Promise<Opened> => {
  let embedded: EmbeddedPostgres | undefined;
  let options: Parameters<typeof makePostgresStorage>[0];
  if (config.mode === "embedded") {
    embedded = await startEmbeddedPostgres(embeddedDataDir(dataDir));
    // One process owns the embedded database: its own commits are the only changes to hear.
    options = { ...embedded.storageOptions, readCache: { listen: false, maxEntries: config.readCacheEntries } };
    logger.info(
      { dataDir: embeddedDataDir(dataDir) },
      "storage: embedded PostgreSQL (PGlite); set DATABASE_URL for a server",
    );
  } else {
    // Other instances may share the server: their changes are heard by LISTEN (docs/architecture.md).
    options = { url: config.url, poolSize: config.poolSize, readCache: { maxEntries: config.readCacheEntries } };
    logger.info({ database: redactedUrl(config.url), poolSize: config.poolSize }, "storage: PostgreSQL");
  }
  const postgres = await makePostgresStorage(options);
  const ping = async () => {
    const outcome = await Effect.runPromise(Effect.either(postgres.ping));
    if (Either.isLeft(outcome)) throw new Error(outcome.left.detail);
  };
  await retryWithBackoff("connecting to the database", ping, logger);
  return { postgres, embedded, ping };
};

const closeAll = async ({ postgres, embedded }: Opened) => {
  await postgres.close();
  await embedded?.stop();
};
