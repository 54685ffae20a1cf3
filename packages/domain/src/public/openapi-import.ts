// @mcpsm/domain/openapi-import: importing a provider from an OpenAPI description (the reader port, the
// mapping rules and the import and re-sync use cases). These use cases still take wire bodies; they join
// the `(actor, typed input)` style of @mcpsm/domain/use-cases in a later change.

export {
  type ApiDescription,
  type DescribedBody,
  type DescribedOAuthFlow,
  type DescribedOperation,
  type DescribedParameter,
  type DescribedSecurityScheme,
  OpenApiReader,
  type SecurityRequirement,
} from "../openapi-import/api-description.js";
export { DocumentJson } from "../openapi-import/document-json.js";
export * from "../openapi-import/import-schema.js";
export { importProvider, resyncProvider } from "../openapi-import/import-use-cases.js";
export { mapOperations, matchKey } from "../openapi-import/operation-mapping.js";
export { baseToolName, uniqueNames, wordsOf } from "../openapi-import/tool-naming.js";
export type { JsonObject } from "../validation/text.js";
export { TOOL_NAME_ABBREVIATIONS } from "../openapi-import/tool-naming.js";
