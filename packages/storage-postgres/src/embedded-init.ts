import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";

// Creates a new PGlite data directory (initdb) in a worker thread, run once by `startEmbeddedPostgres`
// (embedded.ts) before it opens the directory itself: the WebAssembly memory initdb and the first session
// grow to is never given back by the thread that used it, and a worker's is freed when it ends (measured:
// docs/performance.md). Posts "created", or { error }.

const create = async (dataDir: string) => {
  const db = await PGlite.create(dataDir);
  await db.close();
};

if (parentPort !== null) {
  const parent = parentPort;
  create(workerData as string).then(
    () => parent.postMessage("created"),
    (error: Error) => parent.postMessage({ error: error.stack ?? error.message }),
  );
}
