/**
 * @mcpsm/domain: the records, validation rules, scope policy, typed errors, use cases and storage port of
 * the MCP server manager. Pure: no web framework, ORM or database driver. Adapters implement `Storage`;
 * HTTP (or any other) front ends call the use cases with an `Actor` and raw request bodies.
 */
export * from "./errors/domain-errors.js";
export { Id, isId, newId, randomAlphanumeric } from "./ids/id.js";
export { ALL_SCOPES, Scope, SCOPES } from "./scopes/scope.js";
export { OPERATIONS, type Operation, requiredScope, SCOPE_POLICY } from "./scopes/scope-policy.js";
export { type Actor, hasScope } from "./tenancy/actor.js";
export { bearerToken } from "./tenancy/bearer-token.js";
export { DEFAULT_QUOTAS, Quotas, quotasLayer } from "./tenancy/quotas.js";
export { aesGcmCipher, aesGcmCipherLayer, keyIdOf, SecretCipher } from "./secrets/secret-cipher.js";
export { REKEY_BATCH_SIZE, type RekeyReport, rekeySecrets } from "./secrets/rekey.js";
export { hmacPageTokenSigner, hmacPageTokenSignerLayer, PageTokenSigner } from "./secrets/page-token-signer.js";
export * from "./storage/index.js";
export { decodePathId, jsonPath, unstorableText, unstorableTextProblems } from "./validation/decode-write.js";
export { FORBIDDEN_HEADERS } from "./validation/http-header.js";
export { httpUrlProblem } from "./validation/http-url.js";
export { jsonSchemaProblem } from "./validation/json-schema.js";

export * from "./provider/provider-schema.js";
export { secretPrefixOf } from "./provider/secret-prefix.js";
export {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type ProviderListPage,
  type ProviderListQuery,
} from "./provider/provider-listing.js";
export {
  createProvider,
  deleteProvider,
  getProvider,
  listProviders,
  updateProvider,
} from "./provider/provider-use-cases.js";
export * from "./tool/tool-schema.js";
export { toolUseCases } from "./tool/tool-use-cases.js";
export * from "./prompt/prompt-schema.js";
export { promptUseCases } from "./prompt/prompt-use-cases.js";
export * from "./resource/resource-schema.js";
export { resourceUseCases } from "./resource/resource-use-cases.js";
export * from "./server/server-schema.js";
export { createServer, deleteServer, getServer, listServers, updateServer } from "./server/server-use-cases.js";
export {
  addServerTool,
  listServerTools,
  removeServerTool,
  serverPrompts,
  serverResources,
} from "./server/server-associations.js";
export * from "./variable/variable-schema.js";
export {
  createVariable,
  deleteVariable,
  getVariable,
  listVariables,
  resolveVariables,
  updateVariable,
} from "./variable/variable-use-cases.js";
export * from "./server-token/server-token-schema.js";
export {
  authenticateServerToken,
  createServerToken,
  getServerToken,
  hashServerToken,
  listServerTokens,
  revokeServerToken,
} from "./server-token/server-token-use-cases.js";
export * from "./mcp/index.js";
export {
  type ApiDescription,
  type DescribedBody,
  type DescribedOAuthFlow,
  type DescribedOperation,
  type DescribedParameter,
  type DescribedSecurityScheme,
  OpenApiReader,
  type SecurityRequirement,
} from "./openapi-import/api-description.js";
export * from "./openapi-import/import-schema.js";
export { importProvider, resyncProvider } from "./openapi-import/import-use-cases.js";
export { baseToolName, uniqueNames, wordsOf } from "./openapi-import/tool-naming.js";
export { mapOperations, matchKey } from "./openapi-import/operation-mapping.js";
export type { JsonObject } from "./validation/text.js";
export { AuditContext } from "./audit/audit-context.js";
export { auditEventOf, changedFields } from "./audit/audit-recorder.js";
export * from "./audit/audit-schema.js";
export { AUDIT_PRUNE_BATCH, listAuditEvents, pruneAuditEvents } from "./audit/audit-listing.js";
