/**
 * @mcpsm/openapi: the management routes as data (method, path, operation, success status, body schemas) and
 * the OpenAPI 3.1 document generated from them and the domain's effect schemas. No HTTP framework: the
 * service (apps/api) binds a handler to each route and serves the document.
 */
export {
  MANAGEMENT_ROUTES,
  type ManagementRoute,
  type Method,
  pathParameters,
  TAGS,
  type Tag,
} from "./management-routes.js";
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
