import { Schema } from "effect";

// The stored side of per-caller variables (docs/api-rules.md §23): one encrypted value per (variable,
// principal), and the forms under way that collect them.

/** A caller's own value of a per-caller variable, encrypted; gone with its variable and its server token. */
export const CallerValueRow = Schema.Struct({
  id: Schema.String,
  tenant: Schema.String,
  variableId: Schema.String,
  /** `oauth:<sub>` or `server-token:<token id>` (`connectionOwner` of the MCP caller). */
  principal: Schema.String,
  /** The server token the caller used, so that revoking it deletes the value; null for OAuth callers. */
  serverTokenId: Schema.NullOr(Schema.String),
  valueCipher: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type CallerValueRow = typeof CallerValueRow.Type;

/**
 * A form under way: who may fill it in, for which variable. Keyed by the digest of the form's id (the id
 * itself, the capability, is only in the URL); taken (deleted) by the one submission that uses it.
 */
export const CallerValueFormRow = Schema.Struct({
  id: Schema.String,
  tenant: Schema.String,
  variableId: Schema.String,
  principal: Schema.String,
  serverTokenId: Schema.NullOr(Schema.String),
  /** The name of the provider whose tool asked, shown on the form. */
  providerName: Schema.String,
  expiresAt: Schema.DateFromSelf,
  createdAt: Schema.DateFromSelf,
});
export type CallerValueFormRow = typeof CallerValueFormRow.Type;
