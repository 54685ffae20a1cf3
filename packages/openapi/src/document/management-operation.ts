import * as D from "@mcpsm/domain/schemas";
import { requiredScope } from "@mcpsm/domain/use-cases";
import { JSONSchema, type SchemaAST } from "effect";
import { type ManagementRoute, pathParameters } from "../operations/management-route.js";
import { PROBLEM_STATUSES, type ProblemStatus } from "../problem-schema.js";
import * as W from "../wire-schemas.js";

// One management operation of the OpenAPI document, and the pieces the document's other parts share.

export const JSON_TYPE = "application/json";

/** The JSON Schemas of the document, with named schemas collected under `components/schemas`. */
export const schemaRegistry = () => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {};
  const of = (schema: { readonly ast: SchemaAST.AST }): JSONSchema.JsonSchema7 =>
    JSONSchema.fromAST(schema.ast, { definitions, definitionPath: "#/components/schemas/", target: "openApi3.1" });
  const sorted = () => Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b)));
  return { of, sorted };
};

export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The RateLimit-* headers (present whenever rate limiting is on). */
export const RATE_LIMIT_HEADERS = Object.fromEntries(
  ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"].map((name) => [
    name,
    headerRef(name),
  ]),
);
export const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** The error statuses an operation can answer, from what it does (docs/api-rules.md §§2–3). */
export const problemStatuses = (route: ManagementRoute): ReadonlyArray<ProblemStatus> => {
  const hasBody = route.request !== undefined;
  const hasParams = pathParameters(route.path).length > 0;
  const writes = route.method !== "GET";
  const statuses: Array<ProblemStatus> = [];
  if (hasBody || hasParams || route.query !== undefined) statuses.push(400);
  statuses.push(401, 403);
  if (hasParams) statuses.push(404);
  if (writes) statuses.push(409);
  if (route.ifMatch) statuses.push(412);
  if (hasBody) statuses.push(413, 415);
  // Rate limits apply to every operation (per client address and per tenant); quotas to some creates.
  statuses.push(429, 500, 503);
  return statuses;
};

const PARAMETER_NOUNS: Record<string, string> = {
  toolID: "tool",
  promptID: "prompt",
  resourceID: "resource",
  tokenID: "server token",
};

/** What `{id}` and friends name on a path. */
const describeParameter = (path: string, name: string): string => {
  if (name !== "id") return `id of the ${PARAMETER_NOUNS[name] ?? name}`;
  const collection = path.split("/")[1] ?? "";
  return `id of the ${collection.replace(/s$/, "")}`;
};

const statusText: Record<200 | 201 | 204, string> = { 200: "OK", 201: "Created", 204: "Deleted (no body)" };

/** The JSON Schemas of a document under construction. */
export type SchemaRegistry = ReturnType<typeof schemaRegistry>;

/** A required header of `schema`. */
export const requiredHeader = (schemas: SchemaRegistry, schema: { readonly ast: SchemaAST.AST }) => ({
  required: true,
  schema: schemas.of(schema),
});

/** The operation object of a management route. */
export const managementOperation = (schemas: SchemaRegistry, route: ManagementRoute) => {
  const idSchema = schemas.of(D.Id);
  const scope = requiredScope(route.operation);
  // Path parameters that are not ids: a server revision's `{version}` and a caller value's `{principal}`.
  const special: Readonly<Record<string, { description: string; schema: unknown }>> = {
    version: {
      description: "a version of the server (a whole number from 1; anything else answers 400)",
      schema: { type: "integer", minimum: 1, maximum: 2147483647 },
    },
    principal: {
      description: "the MCP caller (docs/api-rules.md §23): `oauth:<sub>` or `server-token:<token id>`, URL-encoded",
      schema: { type: "string", maxLength: 512, pattern: "^(oauth:.+|server-token:[A-Za-z0-9]{11})$" },
    },
  };
  const parameters: Array<unknown> = pathParameters(route.path).map((name) => {
    const known = special[name];
    return known !== undefined
      ? { name, in: "path", required: true, ...known }
      : {
          name,
          in: "path",
          required: true,
          description: `${describeParameter(route.path, name)} (11 letters or digits; anything else answers 400)`,
          schema: idSchema,
        };
  });
  if (route.query !== undefined) {
    const query = schemas.of(route.query) as { properties: Record<string, unknown>; required?: Array<string> };
    for (const [name, schema] of Object.entries(query.properties)) {
      const { description, ...rest } = schema as { description?: string };
      parameters.push({
        name,
        in: "query",
        required: query.required?.includes(name) ?? false,
        ...(description === undefined ? {} : { description }),
        schema: rest,
      });
    }
  }
  if (route.ifMatch) parameters.push({ $ref: "#/components/parameters/IfMatch" });
  const successHeaders: Record<string, unknown> = {
    "X-Request-Id": headerRef("X-Request-Id"),
    ...RATE_LIMIT_HEADERS,
  };
  if (route.status === 201) successHeaders.Location = requiredHeader(schemas, W.Location);
  if (route.etag) successHeaders.ETag = requiredHeader(schemas, W.EntityTag);
  const responses: Record<string, unknown> = {
    [route.status]: {
      description: statusText[route.status],
      headers: successHeaders,
      ...(route.response === undefined ? {} : { content: { [JSON_TYPE]: { schema: schemas.of(route.response) } } }),
    },
  };
  if (route.dryRunStatus !== undefined)
    responses[route.dryRunStatus] = {
      description: "Dry run: what the import would do; nothing is stored",
      headers: { "X-Request-Id": headerRef("X-Request-Id"), ...RATE_LIMIT_HEADERS },
      ...(route.response === undefined ? {} : { content: { [JSON_TYPE]: { schema: schemas.of(route.response) } } }),
    };
  for (const status of problemStatuses(route)) responses[status] = responseRef(PROBLEM_STATUSES[status].name);
  return {
    operationId: route.operation,
    summary: route.summary,
    description: `Needs the scope \`${scope}\` (${D.SCOPES[scope]}).${route.quota ? " A per-tenant quota applies: the create beyond it answers 429." : ""}${route.maxBodyBytes === undefined ? "" : ` The body may be up to ${route.maxBodyBytes / 1024 / 1024} MiB (the description itself 10 MiB).`}`,
    tags: [route.tag],
    security: [{ oauth2: [scope] }, { bearerToken: [scope] }],
    "x-required-scope": scope,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.request === undefined
      ? {}
      : { requestBody: { required: true, content: { [JSON_TYPE]: { schema: schemas.of(route.request) } } } }),
    responses,
  };
};
