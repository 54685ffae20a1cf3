import { initOrm } from "./orm.js";

/**
 * Applies the committed migrations that have not run yet to the database at `url`, over a connection of
 * its own, and answers their names. The same as `makePostgresStorage(...).migrate()`, for deploy steps
 * that migrate before the service starts.
 */
export const migrate = async (options: { readonly url: string }): Promise<ReadonlyArray<string>> => {
  const orm = await initOrm({ url: options.url, poolSize: 1, connectTimeoutMs: 10_000, idleTimeoutMs: 0 });
  try {
    return (await orm.migrator.up()).map((m) => m.name);
  } finally {
    await orm.close(true);
  }
};
