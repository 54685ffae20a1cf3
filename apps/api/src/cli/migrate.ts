import { resolve } from "node:path";
import { migrate, startEmbeddedPostgres } from "@mcpsm/storage-postgres";
import { Either } from "effect";
import { loadDatabaseConfig } from "../config/database-config.js";
import { embeddedDataDir } from "../storage/open-storage.js";

// Applies pending migrations to the configured database (DATABASE_URL, or the embedded one in DATA_DIR)
// and prints the names of those it applied. For deploys that turn DATABASE_MIGRATE_ON_START off.
const loaded = await loadDatabaseConfig();
if (Either.isLeft(loaded)) {
  process.stderr.write(`${loaded.left}\n`);
  process.exit(2);
}
const config = loaded.right;
const run = async (): Promise<ReadonlyArray<string>> => {
  if (config.mode === "external") return migrate({ url: config.url });
  const embedded = await startEmbeddedPostgres(embeddedDataDir(resolve(process.env.DATA_DIR ?? "./.data")));
  try {
    return await migrate(embedded.storageOptions);
  } finally {
    await embedded.stop();
  }
};
const applied = await run();
process.stdout.write(
  applied.length === 0 ? "migrate: the schema is up to date\n" : `migrate: applied ${applied.join(", ")}\n`,
);
