import { Schema } from "effect";
import { optional } from "../validation/optional-field.js";
import { pageOf, pageParameters } from "../listing/page-schema.js";
import { optionalFilterFromQuery } from "../listing/query-parameters.js";
import { AnyJsonValue, DateTimeString, Timestamp } from "../validation/text.js";

// The tool-call log (docs/api-rules.md §24): one row per MCP tools/call a server answered, naming when, which
// tool, who called, how it ended, how long it took and how big the answer was. Never argument values, unless
// the server opted into argument capture, and then masked (argument-masking.ts).

/** How a call ended: a result, a tool error result (`isError`), or a JSON-RPC error. */
export const CALL_STATUSES = ["ok", "tool_error", "error"] as const;
export const CallStatus = Schema.Literal(...CALL_STATUSES);
export type CallStatus = typeof CallStatus.Type;

/** The protocol era of the exchange: 2025-era (`legacy`) or 2026-07-28 (`modern`). */
export const CallEra = Schema.Literal("legacy", "modern");
export type CallEra = typeof CallEra.Type;

/** A stored call. `upstreamStatus` is 0 when no upstream answer came; `tokensAfter` null when shaping did not see it. */
export const ToolCallRow = Schema.Struct({
  id: Schema.String,
  tenant: Schema.String,
  serverId: Schema.String,
  at: Schema.DateFromSelf,
  tool: Schema.String,
  principal: Schema.String,
  era: CallEra,
  status: CallStatus,
  errorType: Schema.String,
  upstreamStatus: Schema.Number,
  latencyMs: Schema.Number,
  resultChars: Schema.Number,
  tokensBefore: Schema.Number,
  tokensAfter: Schema.NullOr(Schema.Number),
  arguments: Schema.NullOr(Schema.Unknown),
});
export type ToolCallRow = typeof ToolCallRow.Type;

/** A call as `GET /servers/{id}/calls` returns it. */
export const ToolCallRecord = Schema.Struct({
  id: Schema.String,
  at: Timestamp,
  tool: Schema.String.annotations({ description: 'the tool called as the client named it ("" if none was named)' }),
  principal: Schema.String.annotations({
    description: "who called: `server-token:<token id>` or `oauth:<subject>` (never a credential)",
  }),
  era: CallEra.annotations({ description: "protocol era: legacy (2025-era) or modern (2026-07-28)" }),
  status: CallStatus,
  errorType: Schema.String.annotations({
    description: 'bounded error type ("" on success): tool_error, a JSON-RPC code, or an upstream failure kind',
  }),
  upstreamStatus: Schema.Int.annotations({ description: "HTTP status of the upstream answer; 0 when none came" }),
  latencyMs: Schema.Number.annotations({ description: "time from the call's arrival to its answer, milliseconds" }),
  resultChars: Schema.Int.annotations({ description: "characters of the result's text content" }),
  tokensBefore: Schema.Int.annotations({
    description:
      "o200k_base tokens of the result before response shaping; estimated as characters / 4, rounded up, for an answer shaping did not see (not 2xx or not textual)",
  }),
  tokensAfter: Schema.NullOr(Schema.Int).annotations({
    description: "o200k_base tokens of the result after response shaping; null for an answer shaping did not see",
  }),
  arguments: Schema.optional(
    AnyJsonValue.annotations({
      description: "the masked arguments, only for a server that opted into argument capture",
    }),
  ),
}).annotations({ identifier: "ToolCall" });
export type ToolCallRecord = typeof ToolCallRecord.Type;

const isDateTime = Schema.is(DateTimeString);
const isStatus = Schema.is(CallStatus);
const sinceFilter = (what: string) =>
  optional(
    optionalFilterFromQuery(isDateTime, "must be an RFC 3339 date-time such as 2030-01-01T00:00:00Z").annotations({
      jsonSchema: { type: "string", format: "date-time", description: `only ${what} at or after this time (RFC 3339)` },
    }),
  );

/** The query parameters of `GET /servers/{id}/calls` (§11 paging; filters tool, status, since). */
export const CallListParameters = Schema.Struct({
  ...pageParameters("the nextToken of the previous page (opaque; valid only with the same filters)"),
  tool: optional(
    optionalFilterFromQuery((value) => value.length <= 256, "must be at most 256 characters").annotations({
      jsonSchema: { type: "string", maxLength: 256, description: "only calls of this tool" },
    }),
  ),
  status: optional(
    optionalFilterFromQuery(isStatus, `must be one of ${CALL_STATUSES.join(", ")}`).annotations({
      jsonSchema: { type: "string", enum: [...CALL_STATUSES], description: "only calls that ended so" },
    }),
  ),
  since: sinceFilter("calls"),
});
/** A typed `GET /servers/{id}/calls` query. */
export type CallListQuery = typeof CallListParameters.Type;

/** A page of calls, newest first. */
export const ToolCallPage = pageOf(
  "ToolCallPage",
  "calls",
  ToolCallRecord,
  "calls matching the filters over all pages",
);
export type ToolCallPage = typeof ToolCallPage.Type;

/** The wire form of a stored call. */
export const toToolCallRecord = (row: ToolCallRow): ToolCallRecord => ({
  id: row.id,
  at: row.at.toISOString(),
  tool: row.tool,
  principal: row.principal,
  era: row.era,
  status: row.status,
  errorType: row.errorType,
  upstreamStatus: row.upstreamStatus,
  latencyMs: row.latencyMs,
  resultChars: row.resultChars,
  tokensBefore: row.tokensBefore,
  tokensAfter: row.tokensAfter,
  ...(row.arguments !== null ? { arguments: row.arguments } : {}),
});
