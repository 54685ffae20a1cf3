import { resolve } from "node:path";
import { aesGcmCipherLayer, keyIdOf, rekeySecrets } from "@mcpsm/domain/use-cases";
import { Layer, ManagedRuntime, Option } from "effect";
import pino from "pino";
import { loadServiceConfigOrExit } from "../config/load-config.js";
import { localEncryptionKey } from "../local-state/data-dir.js";
import { openStorage } from "../storage/open-storage.js";

// Re-encrypts every stored secret (SECRET variable values, provider client secrets) under ENCRYPTION_KEY,
// reading those under a key of ENCRYPTION_KEYS_OLD, so that the old keys can then be dropped. Same
// configuration as the service (DATABASE_URL or DATA_DIR). Safe to run while the service runs and to run
// again. Exit status 1 when some secret is under a key it was not given.
const { app: config, database } = await loadServiceConfigOrExit();
const dataDir = resolve(config.dataDir);
const logger = pino({ level: config.logLevel === "info" ? "warn" : config.logLevel }, pino.destination(2));
const key = Option.isSome(config.encryptionKey) ? config.encryptionKey.value : await localEncryptionKey(dataDir);
const oldKeys = config.encryptionKeysOld ?? [];
const storage = await openStorage(database, dataDir, logger);
const runtime = ManagedRuntime.make(Layer.merge(storage.layer, aesGcmCipherLayer(key, oldKeys)));
try {
  const report = await runtime.runPromise(rekeySecrets());
  process.stdout.write(
    `rekey: current key ${keyIdOf(key)}${oldKeys.length > 0 ? `, old keys ${oldKeys.map(keyIdOf).join(", ")}` : ""}\n` +
      `rekey: ${report.reencrypted} re-encrypted, ${report.current} already under the current key, ` +
      `${report.changedMeanwhile} rewritten meanwhile by the service, ${report.unknownKey.length} under an unknown key\n`,
  );
  for (const secret of report.unknownKey)
    process.stdout.write(
      `rekey: ${secret.kind} ${secret.id} is encrypted under a key not in ENCRYPTION_KEY or ENCRYPTION_KEYS_OLD\n`,
    );
  process.exitCode = report.unknownKey.length > 0 ? 1 : 0;
} catch (error) {
  process.stderr.write(`rekey failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await runtime.dispose();
  await storage.close();
}
