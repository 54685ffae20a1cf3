import { Schema } from "effect";
import { Id } from "../ids/id.js";
import { Timestamp } from "../validation/text.js";

// A call waiting for a person's approval (docs/api-rules.md §20): bound to one caller, one tool of one
// server and the exact arguments (by a salted hash), decided once, used once, gone after 10 minutes.

/** How long an approval (asked, or given and not yet used) stays valid. */
export const APPROVAL_TTL_MS = 10 * 60 * 1000;

/**
 * An approval's id: the capability of its page, a record id (11 letters and digits drawn uniformly from a
 * cryptographic source, about 65 bits) that lives 10 minutes behind the per-address rate limit.
 */
export const ApprovalId = Id;

/** PENDING until decided; APPROVED until the call runs (then USED); DENIED until the caller is told (then USED). */
export const ApprovalStatus = Schema.Literal("PENDING", "APPROVED", "DENIED", "USED");
export type ApprovalStatus = typeof ApprovalStatus.Type;

/** A stored approval. `argumentsShown` is the arguments' JSON with secret-looking values masked. */
export const ApprovalRow = Schema.Struct({
  id: Schema.String,
  /** The tenant of the server (its owner): who may decide. */
  tenant: Schema.String,
  serverId: Schema.String,
  toolId: Schema.String,
  /** The tool's name in the server when asked (its alias, if any). */
  toolName: Schema.String,
  /** The caller (`oauth:<sub>` or `server-token:<id>`), as for upstream connections. */
  principal: Schema.String,
  /** SHA-256 of the approval id and the canonical JSON of the arguments. */
  argumentsHash: Schema.String,
  argumentsShown: Schema.String,
  status: ApprovalStatus,
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf,
  decidedAt: Schema.NullOr(Schema.DateFromSelf),
  /** Who decided: the approver's `sub`, or "approval page". */
  decidedBy: Schema.String,
});
export type ApprovalRow = typeof ApprovalRow.Type;

/** An approval as the management API shows it (never the hash). */
export const ApprovalRecord = Schema.Struct({
  id: Schema.String,
  serverID: Schema.String,
  toolID: Schema.String,
  toolName: Schema.String,
  principal: Schema.String,
  arguments: Schema.String.annotations({ description: "the call's arguments as JSON, secret-looking values masked" }),
  status: ApprovalStatus,
  createdAt: Timestamp,
  expiresAt: Timestamp,
  decidedAt: Schema.String.annotations({ description: 'RFC 3339; "" while undecided' }),
  decidedBy: Schema.String,
}).annotations({ identifier: "Approval" });
export type ApprovalRecord = typeof ApprovalRecord.Type;

/** Body of `POST /approvals/{id}/decision`. */
export const ApprovalDecision = Schema.Literal("APPROVE", "DENY");
export type ApprovalDecision = typeof ApprovalDecision.Type;

/** `{decision}`, the body of a decision. */
export const ApprovalDecisionBody = Schema.Struct({ decision: ApprovalDecision }).annotations({
  identifier: "ApprovalDecision",
});
export type ApprovalDecisionBody = typeof ApprovalDecisionBody.Type;

/** The wire form of a stored approval. */
export const toApprovalRecord = (row: ApprovalRow): ApprovalRecord => ({
  id: row.id,
  serverID: row.serverId,
  toolID: row.toolId,
  toolName: row.toolName,
  principal: row.principal,
  arguments: row.argumentsShown,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  decidedAt: row.decidedAt === null ? "" : row.decidedAt.toISOString(),
  decidedBy: row.decidedBy,
});
