import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../../src/index.js";

/** The embedded database of one test file, and clients that reach it in process or over TCP. */
export interface EmbeddedDatabaseUnderTest {
  /** The running database (started before the file's tests, stopped and removed after them). */
  readonly embedded: () => EmbeddedPostgres;
  /** A new client over the adapter's in-process stream. */
  readonly inProcess: () => pg.Client;
  /** A new client over loopback TCP, as another program (a migration, a shell) connects. */
  readonly overTcp: () => pg.Client;
}

/** Starts an embedded database in a new temporary data directory for the calling file's tests. */
export const useEmbeddedDatabase = (prefix: string): EmbeddedDatabaseUnderTest => {
  let dataDir: string;
  let embedded: EmbeddedPostgres;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), prefix));
    embedded = await startEmbeddedPostgres(dataDir);
  }, 180_000);
  afterAll(async () => {
    await embedded.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    embedded: () => embedded,
    inProcess: () => new pg.Client({ connectionString: embedded.url, stream: embedded.storageOptions.stream }),
    overTcp: () => new pg.Client({ connectionString: embedded.url }),
  };
};
