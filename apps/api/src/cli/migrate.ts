import { resolve } from "node:path";
import { migrate, startEmbeddedPostgres } from "@mcpsm/storage-postgres";
import { loadServiceConfigOrExit } from "../config/load-config.js";
import { embeddedDataDir } from "../storage/open-storage.js";

// Applies pending migrations to the configured database (DATABASE_URL, or the embedded one in DATA_DIR)
// and prints the names of those it applied. For deploys that turn DATABASE_MIGRATE_ON_START off. It reads
// the service's whole configuration, so a deploy whose settings the service would refuse fails here first.
const { app, database: config } = await loadServiceConfigOrExit();
const run = async (): Promise<ReadonlyArray<string>> => {
  if (config.mode === "external") return migrate({ url: config.url });
  const embedded = await startEmbeddedPostgres(embeddedDataDir(resolve(app.dataDir)));
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
