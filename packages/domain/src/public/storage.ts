// @mcpsm/domain/storage: the storage port, what an adapter implements (rows in, rows out, uniqueness and
// reference breaches reported as typed errors). Adapters run the @mcpsm/storage-contract suite.

// Rows are schemas as well as types, so an adapter can decode what its database returns.
export { AuditEventRow } from "../audit/audit-schema.js";
export { ToolCallRow } from "../call-log/call-log-schema.js";
export {
  CALL_MATCH_COUNT_CAP,
  type CallCursor,
  type CallLogStore,
  type CallPage,
  type CallSearch,
  type CallTally,
  type CallUsage,
  type CallUsageQuery,
  type ToolTally,
  type ToolUsageQuery,
} from "../storage/call-log-port.js";
export {
  addHistogram,
  emptyHistogram,
  LATENCY_BOUNDS_MS,
  LATENCY_BUCKETS,
  latencyBucketOf,
  percentileOf,
} from "../call-log/latency-histogram.js";
export { OAuthServerRecordRow, oauthServerRecordId } from "../oauth-server/oauth-server-record.js";
/** The variable names a server's tools name in their headers (what `findProvidersAndTools` reads with them). */
export { variablesReferencedBy } from "../export/export-document.js";
/** The port's write methods the audit trail does not account for (a consistent build has none). */
export { unmappedWrites } from "../audit/audit-recorder.js";
export {
  PromptRow,
  ProviderRow,
  type ProvidersAndTools,
  type ProviderWithTools,
  ResourceRow,
  type ServerGraph,
  ServerProviderLink,
  ServerRow,
  ServerTokenRow,
  ToolRow,
  UpstreamAuthorizationRow,
  UpstreamConnectionRow,
  VariableRow,
} from "../storage/rows.js";
export { ServerToolSettingsRow } from "../server/tool-settings-schema.js";
export { isDefaultToolSettings, storedServerRow, storedToolSettings } from "../server/tool-settings-rows.js";
export { type RecordKind, ReferenceViolation, UniqueViolation } from "../storage/storage-errors.js";
export { ApprovalRow, type ApprovalStatus } from "../approval/approval-schema.js";
export { UpstreamTaskRow, type UpstreamTaskStatus } from "../upstream-task/upstream-task-row.js";
export {
  type ApprovalStore,
  type UpstreamTaskStore,
  type AuditCursor,
  type AuditStore,
  type GitStore,
  type LockStore,
  type OAuthServerStore,
  type PromptStore,
  type ProviderStore,
  type ResourceStore,
  type SecretStore,
  type ServerRevisionStore,
  type ServerStore,
  type ServerTokenStore,
  type ToolStore,
  type UpstreamConnectionStore,
  type VariableStore,
  type AuditPage,
  type AuditSearch,
  type ProviderCursor,
  type ProviderPage,
  type ProviderSearch,
  type SecretCursor,
  type SecretKind,
  type ReadOperation,
  type ReadTx,
  type ServerReference,
  Storage,
  type StorageTx,
  type StoredSecret,
  type ToolPage,
  type ToolSearch,
} from "../storage/storage-port.js";
export {
  GitConnectionRow,
  type GitSyncChanges,
  type GitSyncClaim,
  type GitSyncDue,
  type GitSyncOutcome,
  GitSyncRow,
} from "../git-connection/git-connection-rows.js";
export {
  REVISIONS_KEPT,
  type ServerRevisionEntry,
  type ServerRevisionPage,
  ServerRevisionRow,
  type ServerRevisionSearch,
} from "../revision/revision-rows.js";

export { CallerValueFormRow, CallerValueRow } from "../caller-value/caller-value-rows.js";
export type { CallerValueStore } from "../caller-value/caller-value-store.js";
export { visibleTo } from "../provider/provider-visibility.js";
