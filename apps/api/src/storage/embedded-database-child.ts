import { migrate, startEmbeddedPostgres } from "@mcpsm/storage-postgres";

// The child process of `createEmbeddedDatabase` (create-embedded-database.ts): creates the embedded
// database in the directory given as its argument, applies the migrations, closes it, sends the names of
// the migrations it applied to its parent and exits.

const dataDir = process.argv[2];
if (dataDir === undefined || process.send === undefined)
  throw new Error("usage: a child process of createEmbeddedDatabase");
const embedded = await startEmbeddedPostgres(dataDir);
try {
  const applied = await migrate({ url: embedded.url, poolSize: 1 });
  process.send({ applied });
} finally {
  await embedded.stop();
}
process.disconnect();
