import { Schema } from "effect";
import { optional } from "../validation/optional-field.js";
import { Id } from "../ids/id.js";
import { DateTimeString, Name, Timestamp } from "../validation/text.js";

/** Write shape of a server token: `name` required, `expiresAt` optional (absent or null = never). */
export const ServerTokenCreate = Schema.Struct({
  name: Name,
  expiresAt: optional(Schema.NullOr(DateTimeString)),
}).annotations({ identifier: "ServerTokenCreate" });
export type ServerTokenCreate = typeof ServerTokenCreate.Type;

/** Output-only token fields ignored in writes. */
export const SERVER_TOKEN_OUTPUT_FIELDS = ["id", "serverID", "createdAt", "value"] as const;

/** A server token as returned by the API; `value` only in the create response, `expiresAt` only when set. */
export const ServerTokenRecord = Schema.Struct({
  id: Id,
  serverID: Id,
  createdAt: Timestamp,
  expiresAt: optional(Timestamp),
  name: Schema.String,
  value: optional(Schema.String),
}).annotations({ identifier: "ServerToken" });
export type ServerTokenRecord = typeof ServerTokenRecord.Type;

/** Prefix of every server token value, so leaked tokens are recognisable by secret scanners. */
export const SERVER_TOKEN_PREFIX = "mcps_";
