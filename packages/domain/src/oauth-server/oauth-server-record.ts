import { createHash } from "node:crypto";
import { Schema } from "effect";
import { JsonObject } from "../validation/text.js";

// The state of the service's own OAuth authorization server for its MCP endpoints (packages/mcp-oauth):
// client registrations, grants, sessions, interactions, authorization codes, refresh tokens. They are kept
// through the storage port so that every instance sharing the store sees the same ones and a restart
// loses none. The payload is the authorization server's own document for the record (opaque here); the
// other fields are what the store looks records up by.

/** One stored record of the service's OAuth authorization server. */
export const OAuthServerRecordRow = Schema.Struct({
  /** `<model>:<SHA-256 of the record id>` (oauthServerRecordId), unique over every model. */
  id: Schema.String,
  /** The kind of record (`Client`, `Grant`, `Session`, `RefreshToken`, ...). */
  model: Schema.String,
  payload: JsonObject,
  /** The grant the record belongs to (a grant names itself), or null. */
  grantId: Schema.NullOr(Schema.String),
  /** A session's uid (sessions are also looked up by it), or null. */
  uid: Schema.NullOr(Schema.String),
  /** The server token pasted at consent, for a grant made that way: revoking the token ends the grant. */
  serverTokenId: Schema.NullOr(Schema.String),
  /**
   * The record's one secret, encrypted with the SecretCipher (a session's id, a confidential client's
   * secret), or null; included in key rotation. Record ids are stored as SHA-256 digests, so no bearer value
   * (refresh token, authorization code, session id) is kept in clear.
   */
  secretCipher: Schema.NullOr(Schema.String),
  /** When the record stops being valid (null: never); expired records are pruned. */
  expiresAt: Schema.NullOr(Schema.DateFromSelf),
  /** When a one-time record (authorization code, rotated refresh token) was used, or null. */
  consumedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type OAuthServerRecordRow = typeof OAuthServerRecordRow.Type;

/** The stored id of record `id` of `model`: the model and the SHA-256 (hex) of the id. */
export const oauthServerRecordId = (model: string, id: string): string =>
  `${model}:${createHash("sha256").update(id, "utf8").digest("hex")}`;
