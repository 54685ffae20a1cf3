import { initOrm, runMigrations } from "./orm.js";

/**
 * Applies the committed migrations that have not run yet to the database at `url`, over connections of
 * its own, and answers their names: the same as `makePostgresStorage(...).migrate()`, for deploy steps that
 * migrate before the service starts. Concurrent runs against one server take turns (an advisory lock);
 * pass `poolSize: 1` for the embedded server (`startEmbeddedPostgres(...).storageOptions` does), which
 * serves one connection at a time and so runs without the lock.
 */
export const migrate = async (options: {
  readonly url: string;
  readonly poolSize?: number;
}): Promise<ReadonlyArray<string>> => {
  const poolSize = options.poolSize === 1 ? 1 : 2;
  const orm = await initOrm({ url: options.url, poolSize, connectTimeoutMs: 10_000, idleTimeoutMs: 0 });
  try {
    return await runMigrations(orm, poolSize > 1);
  } finally {
    await orm.close(true);
  }
};
