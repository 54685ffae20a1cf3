import { randomBytes } from "node:crypto";
import { Cause, Effect, Exit } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { aesGcmCipher, keyIdOf, SecretCipher, aesGcmCipherLayer } from "../src/secrets/secret-cipher.js";

const key = () => new Uint8Array(randomBytes(32));

const encrypt = (cipher: ReturnType<typeof aesGcmCipher>, plaintext: string) =>
  Effect.runSync(cipher.encrypt(plaintext));
const decryptExit = (cipher: ReturnType<typeof aesGcmCipher>, ciphertext: string) =>
  Effect.runSyncExit(cipher.decrypt(ciphertext));

const expectDies = (exit: Exit.Exit<string>) => {
  expect(Exit.isFailure(exit)).toBe(true);
  if (Exit.isFailure(exit)) expect(Cause.isDie(exit.cause)).toBe(true);
};

/**
 * Flips one bit of the packed nonce ‖ ciphertext ‖ tag (working on bytes, not base64url characters: the last
 * character of base64url can carry unused bits, so changing it may not change the data at all).
 */
const tamper = (ciphertext: string, at: number, bit: number): string => {
  const [version, keyId, packed = ""] = ciphertext.split(".");
  const raw = Buffer.from(packed, "base64url");
  const index = at % raw.length;
  raw[index] = (raw[index] ?? 0) ^ (1 << bit);
  return `${version}.${keyId}.${raw.toString("base64url")}`;
};

describe("aesGcmCipher", () => {
  it("round-trips any string", () => {
    const cipher = aesGcmCipher(key());
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (plaintext) => {
        const exit = decryptExit(cipher, encrypt(cipher, plaintext));
        expect(exit).toEqual(Exit.succeed(plaintext));
      }),
    );
  });

  it("produces the documented v1.<keyId>.<body> format", () => {
    const k = key();
    const ciphertext = encrypt(aesGcmCipher(k), "hello");
    expect(ciphertext).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
    expect(ciphertext.split(".")[1]).toBe(keyIdOf(k));
  });

  it("encrypts the same plaintext differently every time, never revealing it", () => {
    const cipher = aesGcmCipher(key());
    const plaintext = "ghp_SuperSecretToken1234567890";
    const ciphertexts = Array.from({ length: 50 }, () => encrypt(cipher, plaintext));
    expect(new Set(ciphertexts).size).toBe(50);
    for (const c of ciphertexts) {
      expect(c).not.toContain(plaintext);
      expect(c).not.toContain(Buffer.from(plaintext).toString("base64url"));
      expect(c).not.toContain("SuperSecret");
    }
  });

  it("still decrypts values of a previous key after rotation", () => {
    const oldKey = key();
    const newKey = key();
    const before = aesGcmCipher(oldKey);
    const stored = encrypt(before, "old secret");

    const after = aesGcmCipher(newKey, [oldKey]);
    expect(decryptExit(after, stored)).toEqual(Exit.succeed("old secret"));
    const fresh = encrypt(after, "new secret");
    expect(fresh.split(".")[1]).toBe(keyIdOf(newKey));
    expect(decryptExit(after, fresh)).toEqual(Exit.succeed("new secret"));
    // The old cipher does not know the new key.
    expectDies(decryptExit(before, fresh));
  });

  it("dies on a value from an unknown key", () => {
    const stored = encrypt(aesGcmCipher(key()), "secret");
    expectDies(decryptExit(aesGcmCipher(key()), stored));
  });

  it("dies on tampered ciphertext", () => {
    const cipher = aesGcmCipher(key());
    const stored = encrypt(cipher, "a secret worth protecting");
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 0, max: 7 }), (at, bit) => {
        const tampered = tamper(stored, at, bit);
        expect(tampered).not.toBe(stored);
        expectDies(decryptExit(cipher, tampered));
      }),
      { numRuns: 200 },
    );
  });

  it("dies on malformed values", () => {
    const k = key();
    const cipher = aesGcmCipher(k);
    const stored = encrypt(cipher, "x");
    for (const bad of [
      "",
      "garbage",
      `v2.${keyIdOf(k)}.${stored.split(".")[2]}`,
      `v1.${keyIdOf(k)}`,
      `v1.${keyIdOf(k)}.AAAA`,
    ])
      expectDies(decryptExit(cipher, bad));
  });

  it("refuses keys that are not 32 bytes", () => {
    expect(() => aesGcmCipher(new Uint8Array(16))).toThrow(/32 bytes/);
    expect(() => aesGcmCipher(key(), [new Uint8Array(31)])).toThrow(/32 bytes/);
  });

  it("is provided as a layer", () => {
    const program = Effect.gen(function* () {
      const cipher = yield* SecretCipher;
      return yield* cipher.decrypt(yield* cipher.encrypt("via layer"));
    });
    expect(Effect.runSync(Effect.provide(program, aesGcmCipherLayer(key())))).toBe("via layer");
  });
});

describe("key rotation helpers", () => {
  it("isCurrent names ciphertexts under the current key; knowsKeyOf any key it can decrypt with", () => {
    const [oldKey, newKey, strangerKey] = [key(), key(), key()];
    const before = encrypt(aesGcmCipher(oldKey), "secret");
    const stranger = encrypt(aesGcmCipher(strangerKey), "secret");
    const rotated = aesGcmCipher(newKey, [oldKey]);
    const after = encrypt(rotated, "secret");
    expect(rotated.isCurrent(after)).toBe(true);
    expect(rotated.isCurrent(before)).toBe(false);
    expect(rotated.knowsKeyOf(before)).toBe(true);
    expect(rotated.knowsKeyOf(after)).toBe(true);
    expect(rotated.knowsKeyOf(stranger)).toBe(false);
    expect(rotated.knowsKeyOf("garbage")).toBe(false);
    expect(Effect.runSync(rotated.decrypt(before))).toBe("secret");
    expect(after.split(".")[1]).toBe(keyIdOf(newKey));
  });
});
