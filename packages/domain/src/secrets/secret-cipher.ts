import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { Context, Effect, Layer } from "effect";

/** Encrypts secrets before they are stored and decrypts them when the service itself needs them. */
export class SecretCipher extends Context.Tag("@mcpsm/domain/SecretCipher")<
  SecretCipher,
  {
    readonly encrypt: (plaintext: string) => Effect.Effect<string>;
    /** Dies when the ciphertext is not from a known key: that is corruption or a lost key, not user error. */
    readonly decrypt: (ciphertext: string) => Effect.Effect<string>;
    /** True when `ciphertext` is under the current key (re-encrypting it would change nothing). */
    readonly isCurrent: (ciphertext: string) => boolean;
    /** True when one of the keys (current or previous) is the one `ciphertext` names. */
    readonly knowsKeyOf: (ciphertext: string) => boolean;
  }
>() {}

/** The id stored beside each ciphertext: the first 8 hex digits of the key's SHA-256. */
export const keyIdOf = (key: Uint8Array): string => createHash("sha256").update(key).digest("hex").slice(0, 8);

/**
 * AES-256-GCM with a fresh 96-bit nonce per value, as `v1.<keyId>.<base64url(nonce ‖ ciphertext ‖ tag)>`.
 * `current` encrypts; `current` and every `previous` key decrypt, so keys can rotate.
 */
export const aesGcmCipher = (current: Uint8Array, previous: ReadonlyArray<Uint8Array> = []) => {
  for (const key of [current, ...previous]) if (key.length !== 32) throw new Error("encryption keys must be 32 bytes");
  const keys = new Map([current, ...previous].map((key) => [keyIdOf(key), key] as const));
  const currentId = keyIdOf(current);
  const keyIdIn = (ciphertext: string) => {
    const [version, keyId] = ciphertext.split(".", 2);
    return version === "v1" ? keyId : undefined;
  };
  return SecretCipher.of({
    isCurrent: (ciphertext) => keyIdIn(ciphertext) === currentId,
    knowsKeyOf: (ciphertext) => {
      const keyId = keyIdIn(ciphertext);
      return keyId !== undefined && keys.has(keyId);
    },
    encrypt: (plaintext) =>
      Effect.sync(() => {
        const nonce = randomBytes(12);
        const cipher = createCipheriv("aes-256-gcm", current, nonce);
        const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
        const packed = Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url");
        return `v1.${currentId}.${packed}`;
      }),
    decrypt: (ciphertext) =>
      Effect.sync(() => {
        const [version, keyId, packed] = ciphertext.split(".");
        const key = keyId === undefined ? undefined : keys.get(keyId);
        if (version !== "v1" || key === undefined || packed === undefined)
          throw new Error(`secret encrypted under unknown key '${keyId ?? ""}'`);
        const raw = Buffer.from(packed, "base64url");
        const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(raw.length - 16));
        return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
      }),
  });
};

/** A SecretCipher layer over AES-256-GCM keys. */
export const aesGcmCipherLayer = (current: Uint8Array, previous: ReadonlyArray<Uint8Array> = []) =>
  Layer.succeed(SecretCipher, aesGcmCipher(current, previous));
