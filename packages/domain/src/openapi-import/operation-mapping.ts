import { Either, Schema } from "effect";
import type { FieldProblem } from "../errors/domain-errors.js";
import { type ToolCreate as ToolCreateType, HTTP_METHODS, ToolCreate } from "../tool/tool-schema.js";
import { parseProblems, unstorableTextProblems } from "../validation/decode-write.js";
import { jsonSchemaProblem } from "../validation/json-schema.js";
import type { JsonObject } from "../validation/text.js";
import type {
  ApiDescription,
  DescribedOperation,
  DescribedParameter,
  DescribedSecurityScheme,
  SecurityRequirement,
} from "./api-description.js";
import { fixedQueryProperties, splitOperationPath } from "./fixed-query.js";
import { withHoistedDefs } from "./schema-defs.js";
import { loosenedToFit, withinSchemaLimit } from "./schema-size.js";
import { toolDescription, toolTitle } from "./tool-text.js";
import { mapRequestBody } from "./request-body-mapping.js";
import { baseToolName } from "./tool-naming.js";
import { withoutUnsafePatterns } from "./unsafe-patterns.js";

// The mapping rules of docs/api-rules.md §15: one operation → one tool draft (or a skip with its reason).

/** A tool an operation maps to, validated as a hand-written tool would be; its final name comes later. */
export interface ToolDraft {
  /** `METHOD path` (the whole path as written) with placeholder names blanked: what a re-sync matches by. */
  readonly key: string;
  /** The operation's path exactly as the description writes it (stored with the tool). */
  readonly operationPath: string;
  /** The operation accepts and finishes later (a 202 answer): docs/api-rules.md §22. */
  readonly longRunning: boolean;
  readonly baseName: string;
  readonly fields: ToolCreateType;
  /** The JSON Schema of the success answer's body, when the description gives one (not a wire field). */
  readonly responseSchema?: JsonObject | undefined;
}

/** One operation that did not become a tool. */
export interface SkippedOperation {
  readonly method: string;
  readonly path: string;
  readonly reason: string;
}

/** The operations of a description, mapped. */
export interface MappedOperations {
  readonly drafts: ReadonlyArray<ToolDraft>;
  readonly skipped: ReadonlyArray<SkippedOperation>;
  readonly warnings: ReadonlyArray<FieldProblem>;
}

/** What the mapping needs to know of the provider the tools belong to. */
export interface MappingContext {
  /** Prefix of the variables tool headers may reference (the provider's `secretPrefix`). */
  readonly secretPrefix: string;
  /** The OAuth 2.0 scheme whose scopes tools request (the provider's oauth2Config comes from it). */
  readonly oauth2Scheme: string | undefined;
  /** The provider has an oauth2Config: tools must not set Authorization themselves. */
  readonly hasOAuth2Config: boolean;
  /** Where problems are located: the document's path, such as `import.document`. */
  readonly root: string;
}

/** The key a re-sync matches an operation and a tool by. */
export const matchKey = (method: string, path: string): string =>
  `${method.toUpperCase()} ${path.replace(/\{[^{}]*\}/g, "{}")}`;

const MAX_TITLE = 64;
const MAX_DESCRIPTION = 10_000;

/**
 * The key of an operation whose template another operation of the document already has (`/v1/{run}:write`
 * after `/v1/{experiment}:write`): its method and path exactly as written.
 */
export const exactKey = (method: string, path: string): string => `${method.toUpperCase()} =${path}`;

/** What an OAuth 2.0 scope token may hold (RFC 6749 §3.3). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/;

/** `import.document.paths['/pets/{id}'].get`: where an operation sits in the document. */
export const operationLocation = (root: string, method: string, path: string): string =>
  `${root}.paths['${path}'].${method}`;

/** A valid placeholder name for `{name}`: other characters become `_`, a leading digit gets a `_`. */
const placeholderName = (name: string): string => {
  const cleaned = name.replace(/[^A-Za-z0-9_]/g, "_");
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
};

/** `{user-id}` → `{user_id}`, unique within the path; the map says which parameter each came from. */
const normalisePath = (path: string): { path: string; names: Map<string, string> } => {
  const names = new Map<string, string>();
  const used = new Set<string>();
  const normalised = path.replace(/\{([^{}]*)\}/g, (_, original: string) => {
    const known = names.get(original);
    if (known !== undefined) return `{${known}}`;
    let name = placeholderName(original);
    for (let n = 2; used.has(name); n++) name = `${placeholderName(original)}_${n}`;
    used.add(name);
    names.set(original, name);
    return `{${name}}`;
  });
  return { path: normalised, names };
};

const withDescription = (parameter: DescribedParameter): JsonObject =>
  parameter.description !== "" && parameter.schema.description === undefined
    ? { ...parameter.schema, description: parameter.description }
    : parameter.schema;

/**
 * The object schema of a set of parameters (properties in order; `required` when any is), the shared
 * schemas of its properties gathered in its own `$defs`.
 */
const objectSchema = (properties: ReadonlyArray<[string, JsonObject]>, required: ReadonlyArray<string>) =>
  withHoistedDefs({
    type: "object",
    properties: Object.fromEntries(properties),
    ...(required.length > 0 ? { required: [...required] } : {}),
  });

/** The header value that sends an API key from the provider's variables. */
const apiKeyVariable = (prefix: string, index: number, scheme: string) =>
  index === 0 ? `\${${prefix}_API_KEY}` : `\${${prefix}_${scheme.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY}`;

/** Credentials of an operation: the first requirement alternative the service can satisfy. */
const credentialsOf = (
  security: ReadonlyArray<SecurityRequirement>,
  schemes: ReadonlyMap<string, DescribedSecurityScheme>,
  apiKeyOrder: ReadonlyArray<string>,
  context: MappingContext,
  unmapped: Set<string>,
): { headers: Array<{ key: string; value: string }>; scopes: Array<string> } => {
  const missed: Array<string> = [];
  for (const requirement of security) {
    const names = Object.keys(requirement);
    // An empty alternative means "no credentials needed".
    if (names.length === 0) return { headers: [], scopes: [] };
    if (context.oauth2Scheme !== undefined && names.includes(context.oauth2Scheme))
      return { headers: [], scopes: [...new Set(requirement[context.oauth2Scheme] ?? [])] };
    const headers: Array<{ key: string; value: string }> = [];
    let satisfiable = true;
    for (const name of names) {
      const scheme = schemes.get(name);
      if (scheme?.type === "apiKey" && scheme.in === "header")
        headers.push({
          key: scheme.name,
          value: apiKeyVariable(context.secretPrefix, apiKeyOrder.indexOf(name), name),
        });
      else if (scheme?.type === "http" && scheme.scheme.toLowerCase() === "bearer" && !context.hasOAuth2Config)
        headers.push({ key: "Authorization", value: `Bearer \${${context.secretPrefix}_TOKEN}` });
      else {
        satisfiable = false;
        missed.push(name);
      }
    }
    if (satisfiable) return { headers, scopes: [] };
  }
  for (const name of missed) unmapped.add(name);
  return { headers: [], scopes: [] };
};

/** Why a security scheme could not give an operation its credentials. */
const unmappedReason = (scheme: DescribedSecurityScheme | undefined, context: MappingContext): string => {
  if (scheme === undefined) return "is not defined in the document";
  switch (scheme.type) {
    case "oauth2":
      return context.oauth2Scheme === undefined
        ? "has no authorizationCode or clientCredentials flow with its URLs (or oauth2Config was removed): the provider has no oauth2Config"
        : "is not the provider's OAuth 2.0 scheme (only the first one is mapped)";
    case "apiKey":
      return `sends its key in the ${scheme.in}: only header keys are mapped (a tool can send fixed headers)`;
    case "http":
      return scheme.scheme.toLowerCase() === "bearer"
        ? "is a bearer token, and the provider's oauth2Config already sets Authorization"
        : `is HTTP ${scheme.scheme} authentication: set an Authorization header on the tools yourself`;
    default:
      return `is of type ${scheme.kind}, which is not mapped`;
  }
};

const decodeTool = Schema.decodeUnknownEither(ToolCreate, { errors: "all", onExcessProperty: "error" });

/** Maps one operation to a tool draft, or says why it cannot be one. */
const mapOperation = (
  operation: DescribedOperation,
  context: MappingContext,
  schemes: ReadonlyMap<string, DescribedSecurityScheme>,
  apiKeyOrder: ReadonlyArray<string>,
  warnings: Array<FieldProblem>,
  unmappedSchemes: Set<string>,
): ToolDraft | string => {
  const method = operation.method.toUpperCase();
  if (operation.problem !== undefined) return operation.problem;
  if (!(HTTP_METHODS as ReadonlyArray<string>).includes(method))
    return `method ${method} is not one a tool can call (${HTTP_METHODS.join(", ")})`;
  const location = operationLocation(context.root, operation.method, operation.path);
  const written = splitOperationPath(operation.path);
  const { path, names } = normalisePath(written.path);

  const pathProperties: Array<[string, JsonObject]> = [];
  const queryProperties: Array<[string, JsonObject]> = [];
  const queryRequired: Array<string> = [];
  const unmapped: Array<string> = [];
  const authHeaders = new Set(
    [...schemes.values()].flatMap((s) => (s.type === "apiKey" && s.in === "header" ? [s.name.toLowerCase()] : [])),
  );
  for (const parameter of operation.parameters) {
    if (parameter.in === "path") {
      // `{Key+}` (a greedy placeholder, as AWS writes it) is the parameter `Key`.
      const name = names.get(parameter.name) ?? names.get(`${parameter.name}+`);
      if (name !== undefined) pathProperties.push([name, withDescription(parameter)]);
    } else if (parameter.in === "query") {
      queryProperties.push([parameter.name, withDescription(parameter)]);
      if (parameter.required) queryRequired.push(parameter.name);
    } else if (!(parameter.in === "header" && authHeaders.has(parameter.name.toLowerCase())))
      unmapped.push(`${parameter.in} parameter '${parameter.name}'${parameter.required ? " (required)" : ""}`);
  }
  // The path's fixed query pairs are sent on every call.
  for (const [name, schema] of fixedQueryProperties(written.query, new Set(queryProperties.map(([n]) => n)))) {
    queryProperties.push([name, schema]);
    queryRequired.push(name);
  }
  // A placeholder without a declared parameter still needs a value.
  for (const name of names.values())
    if (!pathProperties.some(([n]) => n === name)) pathProperties.push([name, { type: "string" }]);
  if (unmapped.length > 0)
    warnings.push({
      path: `${location}.parameters`,
      message: `not mapped (a tool sends only path and query arguments, a body and fixed headers): ${unmapped.join(", ")}`,
    });

  const body = mapRequestBody(operation.requestBody, method, location, warnings);

  const credentials = credentialsOf(operation.security, schemes, apiKeyOrder, context, unmappedSchemes);
  const title = toolTitle(operation, MAX_TITLE);
  const description = toolDescription(operation, MAX_DESCRIPTION);

  const fields = {
    method,
    path,
    name: baseToolName(operation.operationId, operation.method, operation.path),
    title,
    description,
    pathArgsJSONSchema:
      pathProperties.length > 0
        ? objectSchema(
            pathProperties,
            pathProperties.map(([n]) => n),
          )
        : {},
    queryArgsJSONSchema: queryProperties.length > 0 ? objectSchema(queryProperties, queryRequired) : {},
    reqBodyJSONSchema: body.reqBodyJSONSchema ?? {},
    ...(body.reqContentType === undefined ? {} : { reqContentType: body.reqContentType }),
    ...(body.reqBodyEncoding === undefined ? {} : { reqBodyEncoding: body.reqBodyEncoding }),
    headers: credentials.headers,
    oauth2Scopes: credentials.scopes.filter((scope) => SCOPE_TOKEN.test(scope)),
  };
  if (fields.oauth2Scopes.length < credentials.scopes.length)
    warnings.push({
      path: `${location}.security`,
      message: `scopes that are not OAuth 2.0 scope tokens are left out: ${credentials.scopes
        .filter((scope) => !SCOPE_TOKEN.test(scope))
        .map((scope) => JSON.stringify(scope.slice(0, 100)))
        .join(", ")}`,
    });
  // Patterns the service's engine cannot run are dropped, and over-long annotations shortened, each with a
  // warning; the operation stays.
  for (const field of ["pathArgsJSONSchema", "queryArgsJSONSchema", "reqBodyJSONSchema"] as const) {
    const safe = withoutUnsafePatterns(fields[field], field, location, warnings);
    fields[field] =
      withinSchemaLimit(safe, field, location, warnings) ?? loosenedToFit(safe, field, location, warnings) ?? safe;
  }
  // The description's text was not checked on the way in (it may be 10 MiB); the part a tool keeps is, here.
  const unstorable = unstorableTextProblems("tool", fields);
  if (unstorable.length > 0)
    return `it holds text no store can keep: ${unstorable.map((p) => `${p.path} ${p.message}`).join("; ")}`;
  const decoded = decodeTool(fields);
  if (Either.isLeft(decoded))
    return `it does not make a valid tool: ${parseProblems("tool", decoded.left)
      .map((p) => `${p.path} ${p.message}`)
      .join("; ")}`;
  return {
    key: matchKey(method, operation.path),
    operationPath: operation.path,
    longRunning: operation.longRunning === true,
    baseName: fields.name,
    fields: decoded.right,
    ...keptResponseSchema(operation.responseSchema, location, warnings),
  };
};

/**
 * The success answer's schema as the tool keeps it (for its MCP outputSchema), under the rules of any tool
 * schema (a valid JSON Schema of at most 64 KiB, safe patterns, storable text); one that breaks them is left
 * out with a warning, and the tool declares no outputSchema.
 */
const keptResponseSchema = (
  described: JsonObject | undefined,
  location: string,
  warnings: Array<FieldProblem>,
): { readonly responseSchema?: JsonObject } => {
  if (described === undefined || Object.keys(described).length === 0) return {};
  const at = `${location}.responses`;
  const schema = withinSchemaLimit(
    withoutUnsafePatterns(described, "respBodyJSONSchema", at, warnings),
    "respBodyJSONSchema",
    at,
    warnings,
  );
  const problem =
    schema === undefined
      ? "is over 64 KiB even without its annotations"
      : (jsonSchemaProblem(schema) ??
        unstorableTextProblems("schema", schema)
          .map((p) => `${p.path} ${p.message}`)
          .join("; "));
  if (problem === "" && schema !== undefined) return { responseSchema: schema };
  warnings.push({
    path: `${location}.responses`,
    message: `the success answer's schema ${problem}: the tool declares no outputSchema`,
  });
  return {};
};

/** The first OAuth 2.0 scheme of the description with a flow the service can run, and that flow. */
export const usableOAuth2 = (description: ApiDescription) => {
  for (const { name, scheme } of description.securitySchemes)
    if (scheme.type === "oauth2") {
      const flow =
        scheme.flows.find((f) => f.kind === "authorizationCode" && f.authorizationUrl !== "" && f.tokenUrl !== "") ??
        scheme.flows.find((f) => f.kind === "clientCredentials" && f.tokenUrl !== "");
      return { name, flow };
    }
  return undefined;
};

/** Maps every operation of a description, in document order. */
export const mapOperations = (description: ApiDescription, context: MappingContext): MappedOperations => {
  const schemes = new Map(description.securitySchemes.map(({ name, scheme }) => [name, scheme]));
  const apiKeyOrder = description.securitySchemes
    .filter(({ scheme }) => scheme.type === "apiKey" && scheme.in === "header")
    .map(({ name }) => name);
  const warnings: Array<FieldProblem> = [];
  const drafts: Array<ToolDraft> = [];
  const skipped: Array<SkippedOperation> = [];
  const seen = new Set<string>();
  const unmappedSchemes = new Set<string>();
  for (const operation of description.operations) {
    const result = mapOperation(operation, context, schemes, apiKeyOrder, warnings, unmappedSchemes);
    const method = operation.method.toUpperCase();
    if (typeof result === "string") skipped.push({ method, path: operation.path, reason: result });
    else {
      // Two templates that differ only in placeholder names are two operations: the later one is keyed by
      // its path as written.
      const key = seen.has(result.key) ? exactKey(method, operation.path) : result.key;
      seen.add(key);
      drafts.push({ ...result, key });
    }
  }
  for (const name of unmappedSchemes)
    warnings.push({
      path: `${context.root}.${description.specVersion === "2.0" ? "securityDefinitions" : "components.securitySchemes"}['${name}']`,
      message: `security scheme '${name}' ${unmappedReason(schemes.get(name), context)}; the operations that need it get no credentials`,
    });
  return { drafts, skipped, warnings };
};
