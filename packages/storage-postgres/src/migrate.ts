import { initOrm, runMigrations } from "./orm.js";

/**
 * Applies the committed migrations that have not run yet to the database at `url`, over connections of
 * its own, and answers their names: the same as `makePostgresStorage(...).migrate()`, for deploy steps that
 * migrate before the service starts. Concurrent runs against one server take turns (an advisory lock).
 * The embedded server (`poolSize: 1`, or its `storageOptions`, which carry its in-process `stream`) serves
 * one TCP connection at a time, so its runs take turns at its gate, over TCP with one connection and no lock
 * (its in-process connections share one session, where an advisory lock excludes nothing).
 */
export const migrate = async (options: {
  readonly url: string;
  readonly poolSize?: number;
  readonly stream?: unknown;
}): Promise<ReadonlyArray<string>> => {
  const poolSize = options.poolSize === 1 || options.stream !== undefined ? 1 : 2;
  const orm = await initOrm({ url: options.url, poolSize, connectTimeoutMs: 10_000, idleTimeoutMs: 0 });
  try {
    return await runMigrations(orm, poolSize > 1);
  } finally {
    await orm.close(true);
  }
};
