import { Schema } from "effect";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../provider/provider-schema.js";
import { OPERATIONS } from "../scopes/scope-policy.js";
import { optional } from "../validation/optional-field.js";
import { DateTimeString, Timestamp, WireInt32 } from "../validation/text.js";

// The audit trail of docs/api-rules.md §18: one event per successful management write, naming who did what
// to which record and which fields changed (names only, never values).

/** The kinds of record an audit event can target. */
export const AUDIT_TARGET_KINDS = ["provider", "tool", "prompt", "resource", "variable", "server", "token"] as const;
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

/** The query parameters of `GET /audit-events`. */
export const AuditListParameters = Schema.Struct({
  limit: optional(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
      default: DEFAULT_PAGE_SIZE,
      description: `page size, at least 1; values above ${MAX_PAGE_SIZE} are treated as ${MAX_PAGE_SIZE}`,
    }),
  ),
  token: optional(
    Schema.String.annotations({
      description: "the nextToken of the previous page (opaque; valid only with the same filters)",
    }),
  ),
  targetID: optional(Schema.String.annotations({ description: "only events whose target has this id" })),
  operation: optional(Schema.Literal(...OPERATIONS).annotations({ description: "only events of this operation" })),
  since: optional(DateTimeString.annotations({ description: "only events at or after this time (RFC 3339)" })),
});

/** A page of audit events, newest first. */
export const AuditEventPage = Schema.Struct({
  auditEvents: Schema.Array(AuditEventRecord),
  matchCount: Schema.Int.annotations({ description: "events matching the filters over all pages" }),
  nextToken: Schema.String.annotations({ description: 'pass as `token` for the next page; "" on the last page' }),
}).annotations({ identifier: "AuditEventPage" });
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
