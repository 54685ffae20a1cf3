import { storageContract } from "@mcpsm/storage-contract";
import { migratedStorage, targets, truncateAll } from "./support/targets.js";

// The shared contract of the storage port, against PGlite and (with TEST_DATABASE_URL) a PostgreSQL server.
// One migrated database per target serves every test; each test starts from emptied tables.
for (const target of targets)
  storageContract(`postgres (${target.name})`, async () => {
    const handle = await migratedStorage(await target.create());
    return { storage: handle.storage, reset: () => truncateAll(handle), dispose: handle.dispose };
  });
