import { resolve } from "node:path";
import pino from "pino";
import { loadServiceConfigOrExit } from "./config/load-config.js";
import { collectAllGarbage } from "./launcher/memory-reducing-collection.js";
import { startQuietTimeCollection } from "./launcher/quiet-time-garbage.js";
import { startService } from "./service.js";
import { openStorage, PendingMigrations } from "./storage/open-storage.js";

// Start-up: read and check the configuration, open the database (waiting for it), start, and stop
// gracefully on SIGTERM/SIGINT.
const { app: config, database } = await loadServiceConfigOrExit();
// Log lines are written asynchronously (buffered while a write is in flight, so a busy service makes one
// write for many lines instead of a blocking write per line); pino flushes what is left when the process exits.
const logger = pino({ level: config.logLevel }, pino.destination({ sync: false }));
let stopping = false;
const storage = await openStorage(database, resolve(config.dataDir), logger).catch((error: unknown) => {
  if (!(error instanceof PendingMigrations)) throw error;
  logger.fatal({ pending: error.pending }, error.message);
  process.exit(2);
});
const service = await startService(config, {
  storage: storage.layer,
  ready: storage.ready,
  onClose: storage.close,
  logger,
  readCacheCounters: storage.readCacheCounters,
});
// Where to go next, said once: the console, and how to sign in to it (a dev-auth token, or the identity provider).
const signIn =
  config.auth.mode === "dev"
    ? `paste a token from \`./run token <tenant>\` (same DATA_DIR: ${resolve(config.dataDir)})`
    : "sign in with the identity provider, or paste an access token it issued";
logger.info({ console: `${service.url}/console`, signIn }, "console ready");
process.stderr.write(`console: ${service.url}/console (sign in: ${signIn})\n`);
// Start-up (loading the modules, opening and migrating the store, building the OpenAPI document) leaves garbage
// and a young generation grown to its maximum, which an idle service may not give back for minutes: the
// embedded store's idle RSS is judged in that state (docs/performance.md, "Embedded store"). Start-up is over
// (store open, listening): give it back before the service idles.
const rssBefore = process.memoryUsage.rss();
collectAllGarbage();
logger.info(
  { rssBeforeMiB: Math.round(rssBefore / 2 ** 20), rssAfterMiB: Math.round(process.memoryUsage.rss() / 2 ** 20) },
  "start-up garbage collected",
);
// From now on, the pages a burst of requests grew the heap to are given back once the requests stop.
const quietCollection = config.memory?.quietCollection;
if (quietCollection !== undefined)
  startQuietTimeCollection(service.server, quietCollection, ({ rssBefore, rssAfter, ms }) =>
    logger.info(
      {
        rssBeforeMiB: Math.round(rssBefore / 2 ** 20),
        rssAfterMiB: Math.round(rssAfter / 2 ** 20),
        ms: Math.round(ms),
      },
      "quiet: garbage collected",
    ),
  );
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`${signal}: finishing in-flight requests, then stopping\n`);
  service.close().then(
    () => process.exit(0),
    (error) => {
      logger.error({ err: error }, "shutdown failed");
      process.exit(1);
    },
  );
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
