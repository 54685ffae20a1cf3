import { Schema } from "effect";

// A task of the MCP tasks extension following a long-running upstream operation (docs/api-rules.md §22),
// stored so that every instance answers `tasks/get` and `tasks/cancel`; only the instance that created it
// looks at the upstream (it holds the call's credentials) and writes what it finds here.

/** `working` until the operation ends (`completed`, its result a tool result) or the caller cancels it. */
export const UpstreamTaskStatus = Schema.Literal("working", "completed", "cancelled");
export type UpstreamTaskStatus = typeof UpstreamTaskStatus.Type;

/** A stored task. `result` is the tool result's JSON once completed. */
export const UpstreamTaskRow = Schema.Struct({
  id: Schema.String,
  /** Whose task it is: the caller's key (only its credential reads or cancels it). */
  owner: Schema.String,
  status: UpstreamTaskStatus,
  statusMessage: Schema.String,
  result: Schema.NullOr(Schema.String),
  pollIntervalMs: Schema.Number,
  createdAt: Schema.DateFromSelf,
  lastUpdatedAt: Schema.DateFromSelf,
  /** When the operation is overdue; a `working` task well past it lost its poller. */
  deadline: Schema.DateFromSelf,
  /** When the record is deleted (deadline + retention). */
  expiresAt: Schema.DateFromSelf,
});
export type UpstreamTaskRow = typeof UpstreamTaskRow.Type;
