import { randomBytes } from "node:crypto";
import { Schema } from "effect";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** 248 = 4 × 62: bytes at or above it are rejected so every character is equally likely (no modulo bias). */
const UNBIASED_LIMIT = 248;

/** `length` characters drawn uniformly from [A-Za-z0-9] using a cryptographic source. */
export const randomAlphanumeric = (length: number): string => {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
};

/** A new record id: 11 characters, uniform over [A-Za-z0-9]. */
export const newId = (): string => randomAlphanumeric(11);

/** The id format of every record: exactly 11 letters or digits. */
export const Id = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9]{11}$/, { message: () => "must be 11 letters or digits" }),
  Schema.annotations({ identifier: "Id", description: "11 characters, letters and digits" }),
);

/** True when `value` has the id format. */
export const isId = Schema.is(Id);
