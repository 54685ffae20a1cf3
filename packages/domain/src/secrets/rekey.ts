import { Effect } from "effect";
import type { SecretCursor, StoredSecret } from "../storage/storage-port.js";
import { Storage } from "../storage/storage-port.js";
import { SecretCipher } from "./secret-cipher.js";

/** What a key rotation did. */
export interface RekeyReport {
  /** Secrets re-encrypted under the current key. */
  readonly reencrypted: number;
  /** Secrets already under the current key. */
  readonly current: number;
  /** Secrets under a key that is neither current nor listed as previous: left as they are. */
  readonly unknownKey: ReadonlyArray<{ readonly kind: StoredSecret["kind"]; readonly id: string }>;
  /** Secrets that changed while the rotation ran (their new ciphertext is already under the current key). */
  readonly changedMeanwhile: number;
}

/** How many secrets one transaction re-encrypts. */
export const REKEY_BATCH_SIZE = 100;

/**
 * Re-encrypts every stored secret (SECRET variable values, provider client secrets, the secrets of the MCP
 * authorization server's records) under the cipher's current key, in transactions of `batchSize` secrets, so
 * that previous keys can be retired. Secrets already
 * under the current key are left alone (running it twice does nothing the second time); a secret whose key
 * is unknown is reported, never touched. Each secret is replaced by compare-and-set: one written
 * concurrently is already under the current key and is kept.
 */
export const rekeySecrets = (batchSize: number = REKEY_BATCH_SIZE) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const cipher = yield* SecretCipher;
    let after: SecretCursor | undefined;
    let reencrypted = 0;
    let current = 0;
    let changedMeanwhile = 0;
    const unknownKey: Array<{ kind: StoredSecret["kind"]; id: string }> = [];
    for (;;) {
      const cursor = after;
      const batch = yield* storage.transaction((tx) =>
        Effect.gen(function* () {
          const secrets = yield* tx.listSecrets(cursor, batchSize);
          for (const secret of secrets) {
            if (cipher.isCurrent(secret.ciphertext)) {
              current++;
              continue;
            }
            if (!cipher.knowsKeyOf(secret.ciphertext)) {
              unknownKey.push({ kind: secret.kind, id: secret.id });
              continue;
            }
            const plaintext = yield* cipher.decrypt(secret.ciphertext);
            const replaced = yield* tx.replaceSecret(secret, yield* cipher.encrypt(plaintext));
            if (replaced) reencrypted++;
            else changedMeanwhile++;
          }
          return secrets;
        }),
      );
      const last = batch.at(-1);
      if (last === undefined || batch.length < batchSize) break;
      after = { kind: last.kind, id: last.id };
    }
    return { reencrypted, current, unknownKey, changedMeanwhile } satisfies RekeyReport;
  });
