/**
 * @mcpsm/openapi: every management operation declared once (method, path, success status, body schemas, the
 * domain's decoders and use case, the answer's shape) and the OpenAPI 3.1 document generated from them and
 * the domain's effect schemas. No HTTP framework: the service (apps/api) mounts each operation's handler on
 * its router and serves the document.
 */
export {
  type Answer,
  defineOperation,
  envelope,
  list,
  type ManagementOperation,
  type OperationHandler,
  type OperationRequest,
  type PathParams,
  type Reply,
} from "./operations/define-operation.js";
export { MANAGEMENT_ROUTES } from "./operations/management-operations.js";
export {
  IMPORT_BODY_BYTES,
  type ManagementRoute,
  type Method,
  pathParameters,
  TAGS,
  type Tag,
} from "./operations/management-route.js";
export {
  API_VERSION,
  DEFAULT_AUTH_URL,
  type DocumentOptions,
  type OpenApiDocument,
  openApiDocument,
  problemStatuses,
} from "./document.js";
export {
  FieldProblem,
  PROBLEM_CODES,
  PROBLEM_STATUSES,
  Problem,
  type ProblemStatus,
  problemOf,
} from "./problem-schema.js";
export { renderDocument } from "./render.js";
