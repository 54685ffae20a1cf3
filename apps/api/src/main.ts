import { Either } from "effect";
import { loadAppConfig } from "./config/app-config.js";
import { startService } from "./service.js";

// Start-up: read and check the configuration, start, and stop gracefully on SIGTERM/SIGINT.
const loaded = await loadAppConfig();
if (Either.isLeft(loaded)) {
  process.stderr.write(`${loaded.left}\n`);
  process.exit(2);
}
const service = await startService(loaded.right);
let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`${signal}: finishing in-flight requests, then stopping\n`);
  service.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
