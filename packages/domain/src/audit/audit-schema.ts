import { Schema } from "effect";
import { OPERATIONS } from "../scopes/scope-policy.js";
import { optional } from "../validation/optional-field.js";
import { isId } from "../ids/id.js";
import { pageOf, pageParameters } from "../listing/page-schema.js";
import { optionalFilterFromQuery } from "../listing/query-parameters.js";
import { DateTimeString, Timestamp, WireInt32 } from "../validation/text.js";

// The audit trail of docs/api-rules.md §18: one event per successful management write, naming who did what
// to which record and which fields changed (names only, never values).

/** The kinds of record an audit event can target. */
export const AUDIT_TARGET_KINDS = [
  "provider",
  "tool",
  "prompt",
  "resource",
  "variable",
  "server",
  "token",
  "connection",
  "gitConnection",
  "callerValue",

  "approval",
] as const;
export const AuditTargetKind = Schema.Literal(...AUDIT_TARGET_KINDS);
export type AuditTargetKind = typeof AuditTargetKind.Type;

/** A stored audit event. `versionBefore`/`versionAfter` are 0 where there is no revision. */
export const AuditEventRow = Schema.Struct({
  id: Schema.String,
  tenant: Schema.String,
  at: Schema.DateFromSelf,
  actorSub: Schema.String,
  actorClientId: Schema.String,
  operation: Schema.String,
  targetKind: AuditTargetKind,
  targetId: Schema.String,
  versionBefore: Schema.Number,
  versionAfter: Schema.Number,
  requestId: Schema.String,
  fields: Schema.Array(Schema.String),
});
export type AuditEventRow = typeof AuditEventRow.Type;

/** An audit event as `GET /audit-events` returns it. */
export const AuditEventRecord = Schema.Struct({
  id: Schema.String,
  at: Timestamp,
  actor: Schema.Struct({
    sub: Schema.String.annotations({ description: "the access token's subject" }),
    clientId: Schema.String.annotations({ description: 'the OAuth client the token was issued to; "" if unknown' }),
  }),
  operation: Schema.String.annotations({ description: "the operation id of the write (createServer, ...)" }),
  target: Schema.Struct({ kind: AuditTargetKind, id: Schema.String }),
  versionBefore: WireInt32.annotations({
    description: "revision before the write; 0 for a create or a record without revisions",
  }),
  versionAfter: WireInt32.annotations({
    description: "revision after the write; 0 for a delete or a record without revisions",
  }),
  requestId: Schema.String,
  fields: Schema.Array(Schema.String).annotations({ description: "names of the changed fields (never values)" }),
}).annotations({ identifier: "AuditEvent" });
export type AuditEventRecord = typeof AuditEventRecord.Type;

/**
 * Audited writes that are no management operation: a finished upstream consent (`GET /oauth2/callback`)
 * makes a connection (docs/api-rules.md §18).
 */
export const AUDIT_ONLY_OPERATIONS = ["createProviderConnection", "setCallerValue"] as const;
const AUDITED_OPERATIONS: ReadonlyArray<string> = [...OPERATIONS, ...AUDIT_ONLY_OPERATIONS];
const OPERATION_NAMES: ReadonlySet<string> = new Set(AUDITED_OPERATIONS);
const isDateTime = Schema.is(DateTimeString);

/**
 * The query parameters of `GET /audit-events` (docs/api-rules.md §11 paging, §18 filters), each at most once;
 * any other parameter is refused. The encoded side is the query string as parsed; the decoded side is the
 * typed `AuditListQuery` that `listAuditEvents` takes. An empty value means "none".
 */
export const AuditListParameters = Schema.Struct({
  // Each field's `jsonSchema` is what a client sends (for the OpenAPI document), not the string decoding.
  ...pageParameters("the nextToken of the previous page (opaque; valid only with the same filters)"),
  targetID: optional(
    optionalFilterFromQuery(isId, "must be an id of 11 letters and digits").annotations({
      jsonSchema: { type: "string", description: "only events whose target has this id" },
    }),
  ),
  operation: optional(
    optionalFilterFromQuery(
      (value) => OPERATION_NAMES.has(value),
      "must be the operation id of a management operation (or createProviderConnection)",
    ).annotations({
      jsonSchema: { type: "string", enum: [...AUDITED_OPERATIONS], description: "only events of this operation" },
    }),
  ),
  since: optional(
    optionalFilterFromQuery(isDateTime, "must be an RFC 3339 date-time such as 2030-01-01T00:00:00Z").annotations({
      jsonSchema: { type: "string", format: "date-time", description: "only events at or after this time (RFC 3339)" },
    }),
  ),
});
/** A typed `GET /audit-events` query: page size (clamped to MAX_PAGE_SIZE), page token and filters. */
export type AuditListQuery = typeof AuditListParameters.Type;

/** A page of audit events, newest first. */
export const AuditEventPage = pageOf(
  "AuditEventPage",
  "auditEvents",
  AuditEventRecord,
  "events matching the filters over all pages",
);
export type AuditEventPage = typeof AuditEventPage.Type;

/** The wire form of a stored event. */
export const toAuditEventRecord = (row: AuditEventRow): AuditEventRecord => ({
  id: row.id,
  at: row.at.toISOString(),
  actor: { sub: row.actorSub, clientId: row.actorClientId },
  operation: row.operation,
  target: { kind: row.targetKind, id: row.targetId },
  versionBefore: row.versionBefore,
  versionAfter: row.versionAfter,
  requestId: row.requestId,
  fields: row.fields,
});
