// @mcpsm/domain/openapi-import: importing a provider from an OpenAPI description (the reader and fetcher
// ports, the mapping rules, the typed inputs and the import and re-sync use cases).

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
export { DescriptionFetcher } from "../openapi-import/description-fetcher.js";
export { DocumentJson } from "../openapi-import/document-json.js";
export {
  type DescriptionSource,
  decodeProviderImport,
  decodeProviderResync,
  type ProviderImportInput,
  type ProviderResyncInput,
} from "../openapi-import/import-input.js";
export * from "../openapi-import/import-schema.js";
export { importProvider, OPENAPI_IMPORT_USE_CASES, resyncProvider } from "../openapi-import/import-use-cases.js";
export { mapOperations, matchKey } from "../openapi-import/operation-mapping.js";
export { baseToolName, uniqueNames, wordsOf } from "../openapi-import/tool-naming.js";
export type { JsonObject } from "../validation/text.js";
export { TOOL_NAME_ABBREVIATIONS } from "../openapi-import/tool-naming.js";
