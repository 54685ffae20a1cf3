import { createHash } from "node:crypto";

// How an approval holds the arguments it was asked for: bound by a salted hash of their canonical JSON
// (so another argument, even one key order apart, is another call), shown with secret-looking values masked.

/** JSON with object keys sorted at every depth: equal arguments give equal text. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
};

/** The binding of an approval to the exact arguments: SHA-256 of its id (the salt) and their canonical JSON. */
export const argumentsHash = (approvalId: string, args: unknown): string =>
  createHash("sha256")
    .update(`${approvalId}\n${canonical(args ?? {})}`)
    .digest("hex");

const SECRET_NAME = /pass|secret|token|key|auth|credential|cookie|session|signature|private/i;

/** The arguments' JSON for a person to read, values under secret-looking names masked as "***". */
export const shownArguments = (args: unknown): string =>
  JSON.stringify(args ?? {}, (key, value) => (key !== "" && SECRET_NAME.test(key) ? "***" : value), 2);
