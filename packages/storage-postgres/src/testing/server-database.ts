import { randomBytes } from "node:crypto";
import pg from "pg";

/** A throwaway database on a PostgreSQL server, for tests. */
export interface ServerDatabase {
  readonly name: string;
  /** The URL of the new database. */
  readonly url: string;
  /** Drops the database (forcing its connections closed). */
  readonly dispose: () => Promise<void>;
}

/**
 * CREATEs a database of a random name on the server of `serverUrl` (for tests that must not share state).
 * Fails loudly when the server cannot be reached: a test run told to use a server never skips it silently.
 */
export const createServerDatabase = async (serverUrl: string): Promise<ServerDatabase> => {
  const name = `mcpsm_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`TEST_DATABASE_URL is set but the server cannot be reached: ${(error as Error).message}`);
  }
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    dispose: async () => {
      const dropper = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
      await dropper.connect();
      try {
        await dropper.query(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
};
