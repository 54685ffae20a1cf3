// @mcpsm/domain/schemas: the wire shapes of the management API as effect schemas (write shapes, records,
// list parameters), the types derived from them, and the decoders that turn a request body or query string
// into the typed input of a use case. The OpenAPI document and any other front end are built on these.

export { HTTP_METHODS, HttpMethod, ToolCreate, ToolHeader, ToolPatch, ToolRecord } from "../tool/tool-schema.js";
export {
  BodyEncoding,
  BodyPropertyEncoding,
  DEFAULT_REQ_CONTENT_TYPE,
  MediaType,
  OUTPUT_SCHEMA_MODES,
  OutputSchemaMode,
} from "../tool/tool-body-fields.js";
export { Id, isId } from "../ids/id.js";
export {
  DEFAULT_MAX_RESULT_TOKENS,
  MAX_FILTER_EXPRESSION_LENGTH,
  MAX_RESULT_TOKENS_RANGE,
  MaxResultTokens,
  RESPONSE_FILTER_LANGUAGES,
  ResponseFilter,
} from "../response-shaping/response-filter.js";
export {
  decodeShapePreviewBody,
  ShapePreviewBody,
  ShapePreviewResult,
} from "../response-shaping/shape-preview.js";
export { PromptArgument, PromptCreate, PromptMessage, PromptPatch, PromptRecord } from "../prompt/prompt-schema.js";
export {
  ApiType,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  OAuth2ConfigRecord,
  OAuth2ConfigWrite,
  ProviderCreate,
  ProviderListParameters,
  type ProviderListQuery,
  ProviderPatch,
  ProviderRecord,
  VisibilityType,
} from "../provider/provider-schema.js";
export type { ProviderListPage } from "../provider/provider-listing.js";
export {
  decodeProviderToolListQuery,
  ProviderToolListParameters,
  type ProviderToolListQuery,
  type ProviderToolPage,
} from "../tool/tool-listing.js";
export { ResourceAnnotations, ResourceCreate, ResourcePatch, ResourceRecord } from "../resource/resource-schema.js";
export { ALL_SCOPES, Scope, SCOPES } from "../scopes/scope.js";
export {
  ServerCreate,
  ServerPatch,
  ServerPromptLink,
  ServerProviderRef,
  ServerRecord,
  ServerResourceLink,
  ServerProviderRecord,
  ServerToolLink,
  ServerToolRecord,
} from "../server/server-schema.js";
export { ApprovalDecisionBody, ApprovalRecord } from "../approval/approval-schema.js";
export {
  ApprovalPolicy,
  FixedArgs,
  ServerToolSettings,
  ServerToolSettingsPatch,
  ToolApproval,
} from "../server/tool-settings-schema.js";
export { ImportReport, ImportResult, ProviderImport, ProviderResync } from "../openapi-import/import-schema.js";
export { SERVER_TOKEN_PREFIX, ServerTokenCreate, ServerTokenRecord } from "../server-token/server-token-schema.js";
export { UpstreamConnectionList, UpstreamConnectionRecord } from "../upstream-connection/connection-schema.js";
export { CallerValueList, CallerValueRecord, isPrincipal } from "../caller-value/caller-value-schema.js";
export { FORBIDDEN_HEADERS } from "../validation/http-header.js";
export { jsonSchemaProblem, MAX_JSON_SCHEMA_BYTES } from "../validation/json-schema.js";
export {
  MASKED_VALUE,
  VariableCreate,
  VariablePatch,
  VariableRecord,
  VariableType,
} from "../variable/variable-schema.js";
export { bearerToken } from "../tenancy/bearer-token.js";
export { decodePathId, jsonPath } from "../validation/decode-write.js";
export { decodeProviderListQuery, type RawQuery } from "../wire/provider-list-query.js";
export {
  decodePromptCreate,
  decodePromptPatch,
  decodeProviderCreate,
  decodeProviderPatch,
  decodeResourceCreate,
  decodeResourcePatch,
  decodeServerCreate,
  decodeServerPatch,
  decodeServerPromptLink,
  decodeServerResourceLink,
  decodeServerTokenCreate,
  decodeServerToolLink,
  decodeServerToolSettingsPatch,
  decodeToolCreate,
  decodeToolPatch,
  decodeVariableCreate,
  decodeVariablePatch,
} from "../wire/write-bodies.js";
export {
  AUDIT_TARGET_KINDS,
  AuditEventPage,
  AuditEventRecord,
  AuditListParameters,
  AuditTargetKind,
} from "../audit/audit-schema.js";
export { decodeAuditListQuery } from "../audit/audit-listing.js";
export {
  CALL_STATUSES,
  CallEra,
  CallListParameters,
  CallStatus,
  ToolCallPage,
  ToolCallRecord,
} from "../call-log/call-log-schema.js";
export {
  MAX_USAGE_BUCKETS,
  USAGE_BUCKETS,
  UsageFigures,
  UsageParameters,
  UsagePoint,
  UsageReport,
  ToolUsage,
} from "../call-log/usage-schema.js";
export { decodeCallListQuery, decodeUsageQuery } from "../call-log/call-log-use-cases.js";
export {
  DEFAULT_GIT_BASE_URLS,
  GitConnectionCreate,
  GitConnectionKind,
  GitConnectionRecord,
  GitRepoFullName,
  GitSyncRecord,
  GitSyncState,
} from "../git-connection/git-connection-schema.js";
export { decodeGitConnectionCreate } from "../wire/write-bodies.js";
/** The server export document and the import answer (docs/api-rules.md §16). */
export {
  EXPORT_LIMITS,
  ExportedOAuth2Config,
  ExportedPrompt,
  ExportedProvider,
  ExportedResource,
  ExportedServerFields,
  ExportedTool,
  ExportedVariable,
  ImportedServer,
  SERVER_EXPORT_FORMAT,
  ServerExportDocument,
  ServerImportReport,
  ServerImportResult,
} from "../export/export-schema.js";
export { decodeServerExportDocument, decodeServerImportQuery, ServerImportParameters } from "../export/import-wire.js";
/** Server revisions (docs/api-rules.md §21). */
export {
  decodeServerRestore,
  decodeServerRestoreQuery,
  decodeServerRevisionDiffQuery,
  decodeServerRevisionListQuery,
  parseVersion,
  ServerRestoreParameters,
  ServerRestoreRequest,
  ServerRestoreResult,
  ServerRevisionDiff,
  ServerRevisionDiffParameters,
  ServerRevisionListParameters,
  ServerRevisionPage,
  ServerRevisionRecord,
} from "../revision/revision-schema.js";
export {
  type DocumentDiff,
  diffDocuments,
  type FieldChange,
  type MemberChange,
  unifiedDiff,
} from "../revision/revision-diff.js";
