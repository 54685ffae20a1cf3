// @mcpsm/domain/use-cases: every management use case as an effect, `useCase(actor, input)`, named after its
// operation in the scope policy; the services they run with; and the operator's key rotation.

export type { Actor } from "../tenancy/actor.js";
export { authorize, scopeRefusal } from "../scopes/authorize.js";
export { OPERATIONS, type Operation, requiredScope, SCOPE_POLICY } from "../scopes/scope-policy.js";
export {
  type AnyOperationUseCase,
  type AnyUseCase,
  type ImportOperation,
  type ImportServices,
  USE_CASES,
  type UseCases,
} from "../use-case/use-case-table.js";
export { operationOf } from "../use-case/define-use-case.js";
export type { NoInput } from "../use-case/define-use-case.js";
export {
  type DomainServices,
  type DomainServicesOptions,
  domainServicesLayer,
} from "../use-case/domain-services.js";
export { DEFAULT_QUOTAS, Quotas, quotasLayer } from "../tenancy/quotas.js";
export {
  NO_RESPONSE_SHAPING,
  ResponseShaping,
  responseShapingLayer,
  type ShapePreview,
  type ShapePreviewRequest,
} from "../response-shaping/response-shaping-port.js";
export { type PreviewToolShapeInput, previewToolShape } from "../response-shaping/shape-preview.js";
export { UpstreamAddressCheck } from "../provider/upstream-address-check.js";
export { aesGcmCipher, aesGcmCipherLayer, keyIdOf, SecretCipher } from "../secrets/secret-cipher.js";
export { hmacPageTokenSigner, hmacPageTokenSignerLayer, PageTokenSigner } from "../secrets/page-token-signer.js";
export { REKEY_BATCH_SIZE, type RekeyReport, rekeySecrets } from "../secrets/rekey.js";
export {
  deleteProviderConnection,
  type ListProviderConnectionsInput,
  listProviderConnections,
  type ProviderConnectionRef,
} from "../upstream-connection/connection-use-cases.js";
export {
  type CallerValueRef,
  type CallerValuesRef,
  deleteCallerValue,
  listCallerValues,
} from "../caller-value/caller-value-use-cases.js";

export {
  type CreateProviderInput,
  createProvider,
  type DeleteProviderInput,
  deleteProvider,
  type GetProviderInput,
  getProvider,
  listProviders,
  type UpdateProviderInput,
  updateProvider,
} from "../provider/provider-use-cases.js";
export {
  type CreateProviderToolInput,
  createProviderTool,
  deleteProviderTool,
  getProviderTool,
  type ListProviderToolsInput,
  listProviderTools,
  type ProviderToolRef,
  type UpdateProviderToolInput,
  updateProviderTool,
} from "../tool/tool-use-cases.js";
export {
  type CreateProviderPromptInput,
  createProviderPrompt,
  deleteProviderPrompt,
  getProviderPrompt,
  type ListProviderPromptsInput,
  listProviderPrompts,
  type ProviderPromptRef,
  type UpdateProviderPromptInput,
  updateProviderPrompt,
} from "../prompt/prompt-use-cases.js";
export {
  type CreateProviderResourceInput,
  createProviderResource,
  deleteProviderResource,
  getProviderResource,
  type ListProviderResourcesInput,
  listProviderResources,
  type ProviderResourceRef,
  type UpdateProviderResourceInput,
  updateProviderResource,
} from "../resource/resource-use-cases.js";
export {
  type CreateServerInput,
  createServer,
  type DeleteServerInput,
  deleteServer,
  type GetServerInput,
  getServer,
  listServers,
  mayReadServerGraph,
  type UpdateServerInput,
  updateServer,
} from "../server/server-use-cases.js";
export {
  type AddServerPromptInput,
  type AddServerResourceInput,
  type AddServerToolInput,
  addServerPrompt,
  addServerResource,
  addServerTool,
  listServerPrompts,
  listServerResources,
  listServerTools,
  type RemoveServerPromptInput,
  type RemoveServerResourceInput,
  type RemoveServerToolInput,
  removeServerPrompt,
  removeServerResource,
  removeServerTool,
  type ServerMembersInput,
} from "../server/server-associations.js";
export {
  APPROVAL_SWEEP_BATCH,
  type DecideApprovalInput,
  decideApproval,
  type ExpiredApprovals,
  listApprovals,
  sweepExpiredApprovals,
} from "../approval/approval-use-cases.js";
export {
  type GetServerToolInput,
  getServerTool,
  type UpdateServerToolInput,
  updateServerTool,
} from "../server/server-tool-settings.js";
export {
  type CreateServerTokenInput,
  createServerToken,
  getServerToken,
  type ListServerTokensInput,
  listServerTokens,
  revokeServerToken,
  type ServerTokenRef,
} from "../server-token/server-token-use-cases.js";
export {
  type CreateVariableInput,
  createVariable,
  type DeleteVariableInput,
  deleteVariable,
  getVariable,
  listVariables,
  type UpdateVariableInput,
  updateVariable,
  type VariableRef,
  variableRevision,
} from "../variable/variable-use-cases.js";

/** The audit trail: the request context a write records, its listing and its retention. */
export { AuditContext } from "../audit/audit-context.js";
export { AUDIT_PRUNE_BATCH, listAuditEvents, pruneAuditEvents } from "../audit/audit-listing.js";
export type { AuditListQuery } from "../audit/audit-schema.js";
/** The tool-call log: listing, live tail, usage and retention. */
export {
  CALL_PRUNE_BATCH,
  type CallTailInput,
  getServerUsage,
  getTenantUsage,
  listServerCalls,
  pruneToolCalls,
  type ServerCallsInput,
  type ServerUsageInput,
  tailServerCalls,
} from "../call-log/call-log-use-cases.js";
export type { CallListQuery } from "../call-log/call-log-schema.js";
export type { UsageQuery } from "../call-log/usage-schema.js";

/** Git connections and the git sync state of a server (docs/api-rules.md §17). */
export {
  type CreateGitConnectionInput,
  createGitConnection,
  deleteGitConnection,
  GIT_CONNECTIONS_PER_TENANT,
  type GitConnectionRef,
  getGitConnection,
  getServerGitSync,
  listGitConnections,
  type ServerGitSyncInput,
  toGitConnectionRecord,
} from "../git-connection/git-connection-use-cases.js";
/** Server export and import (docs/api-rules.md §16); `exportDocumentOf` builds a document inside a transaction. */
export { type ExportServerInput, exportServer } from "../export/export-use-cases.js";
export { exportDocumentOf, toExportDocument } from "../export/export-document.js";
export { type ImportServerInput, importServer } from "../export/server-import.js";
/** Server revisions: list, read, compare, restore (docs/api-rules.md §21). */
export {
  type DiffServerRevisionsInput,
  diffServerRevisions,
  type GetServerRevisionInput,
  getServerRevision,
  type ListServerRevisionsInput,
  listServerRevisions,
  type RestoreServerRevisionInput,
  restoreServerRevision,
} from "../revision/revision-use-cases.js";
export { RevisionSummary } from "../revision/revision-recording.js";
