import { Schema } from "effect";
import { Id } from "../ids/id.js";
import { Timestamp } from "../validation/text.js";

// An upstream OAuth connection on the wire (docs/api-rules.md §13): who made it, for which scopes, until
// when its access token lives and whether it can be refreshed — never a token.

/** A connection as `GET /providers/{id}/connections` lists it. */
export const UpstreamConnectionRecord = Schema.Struct({
  id: Id,
  principal: Schema.String.annotations({
    description: "the MCP caller it belongs to: `oauth:<sub>` or `server-token:<token id>`",
  }),
  scopes: Schema.Array(Schema.String),
  createdAt: Timestamp,
  expiresAt: Timestamp.annotations({ description: "when the current access token expires" }),
  refreshable: Schema.Boolean,
}).annotations({ identifier: "UpstreamConnection" });
export type UpstreamConnectionRecord = typeof UpstreamConnectionRecord.Type;

/** The answer of `GET /providers/{id}/connections`. */
export const UpstreamConnectionList = Schema.Struct({
  connections: Schema.Array(UpstreamConnectionRecord),
}).annotations({ identifier: "UpstreamConnectionList" });
export type UpstreamConnectionList = typeof UpstreamConnectionList.Type;
