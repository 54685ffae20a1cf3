import { mkdtemp, rm } from "node:fs/promises";
import type { StorageTx } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type EmbeddedPostgres,
  makePostgresStorage,
  type PostgresStorage,
  type PostgresStorageOptions,
  startEmbeddedPostgres,
} from "../../src/index.js";
import { createServerDatabase as createThrowawayDatabase } from "../../src/testing/index.js";

// The databases the tests run against: always an embedded PGlite; in addition the PostgreSQL server named
// by TEST_DATABASE_URL when it is set. Each run CREATEs a database of a random name there and DROPs it
// afterwards. A TEST_DATABASE_URL that cannot be reached fails the run: it never silently skips.

/** The server URL the run was given, if any. */
export const serverUrl: string | undefined = process.env.TEST_DATABASE_URL || undefined;

/** An empty database for a test file, and how to get rid of it. */
export interface TestDatabase {
  readonly name: string;
  /** Connection options for makePostgresStorage. */
  readonly options: PostgresStorageOptions;
  readonly dispose: () => Promise<void>;
}

/** A new, empty database on the TEST_DATABASE_URL server. */
export const createServerDatabase = async (): Promise<TestDatabase> => {
  if (serverUrl === undefined) throw new Error("TEST_DATABASE_URL is not set");
  const database = await createThrowawayDatabase(serverUrl);
  return { name: database.name, options: { url: database.url }, dispose: database.dispose };
};

/** A new embedded PostgreSQL (PGlite) in a temporary directory. */
export const createEmbeddedDatabase = async (): Promise<TestDatabase & { readonly embedded: EmbeddedPostgres }> => {
  const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-pglite-"));
  const embedded = await startEmbeddedPostgres(dataDir);
  return {
    name: "pglite",
    embedded,
    options: embedded.storageOptions,
    dispose: async () => {
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
};

/** The targets a test file runs against, by name. */
export const targets: ReadonlyArray<{ readonly name: string; readonly create: () => Promise<TestDatabase> }> = [
  { name: "pglite", create: createEmbeddedDatabase },
  ...(serverUrl === undefined ? [] : [{ name: "postgresql server", create: createServerDatabase }]),
];

/** Waits (30 s at most) until the storage's point-read cache serves: its change listener is connected. */
export const untilServing = async (handle: PostgresStorage) => {
  const deadline = Date.now() + 30_000;
  while (!handle.readCache?.serving) {
    if (Date.now() > deadline) throw new Error("the change listener did not connect");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/**
 * Runs a transaction and waits (30 s at most) until its change has been heard: the cache's generation moves
 * once as COMMIT returns and, on a server, once more when this instance's own notification arrives a moment
 * later, so that nothing drops the cache during what a test measures next.
 */
export const commitHeard = async <A>(
  handle: PostgresStorage,
  targetName: string,
  work: (tx: StorageTx) => Effect.Effect<A, unknown>,
): Promise<A> => {
  const cache = handle.readCache;
  if (cache === undefined) throw new Error("the storage has no read cache");
  const before = cache.current;
  const result = await Effect.runPromise(handle.storage.transaction(work));
  const deadline = Date.now() + 30_000;
  while (cache.current < before + (targetName === "pglite" ? 1 : 2)) {
    if (Date.now() > deadline) throw new Error("the change notification did not arrive");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return result;
};

/**
 * Empties every table of the adapter's schema. DELETE rather than TRUNCATE: on tables this small it is
 * much cheaper; servers go first (their links and tokens cascade), then providers (their tools, prompts
 * and resources cascade; their git outbox entries too), then variables, the audit trail, git connections
 * and the tables without a parent (call logs, upstream tasks).
 */
export const truncateAll = async (handle: PostgresStorage) => {
  await handle.orm.em
    .getConnection()
    .execute(
      "delete from servers; delete from providers; delete from variables; delete from audit_events; delete from oauth_server_records; delete from git_connections; delete from tool_calls; delete from tool_call_usage; delete from tool_call_hourly_usage; delete from tool_call_tool_usage; delete from upstream_tasks",
    );
};

/** A migrated database with a storage on it; `dispose` closes the storage and drops the database. */
export const migratedStorage = async (
  database: TestDatabase,
  extra: Partial<PostgresStorageOptions> = {},
): Promise<PostgresStorage & { readonly dispose: () => Promise<void> }> => {
  const handle = await makePostgresStorage({ ...database.options, ...extra });
  await handle.migrate();
  return {
    ...handle,
    dispose: async () => {
      await handle.close();
      await database.dispose();
    },
  };
};

/**
 * The statements a storage sends while a piece of work runs: give `onStatement` to the storage's options, then
 * `during(handle, work)` answers the work's result, the statements it sent and whether the point-read cache's
 * generation moved (a commit, or a notification heard, drops every cached read).
 */
export const statementRecorder = () => {
  let recording = false;
  const sent: Array<string> = [];
  return {
    onStatement: (sql: string) => {
      if (recording) sent.push(sql);
    },
    during: async <A>(handle: PostgresStorage, work: () => Promise<A>) => {
      const cache = handle.readCache;
      if (cache === undefined) throw new Error("the storage has no read cache");
      const generation = cache.current;
      sent.length = 0;
      recording = true;
      try {
        const result = await work();
        return { result, sent: [...sent], moved: cache.current !== generation };
      } finally {
        recording = false;
      }
    },
  };
};
