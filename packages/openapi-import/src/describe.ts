import type { FieldProblem } from "@mcpsm/domain";
import type {
  ApiDescription,
  DescribedBody,
  DescribedOAuthFlow,
  DescribedOperation,
  DescribedParameter,
  DescribedSecurityScheme,
  JsonObject,
  SecurityRequirement,
} from "@mcpsm/domain/openapi-import";
import { isObject, locate, resolvePointer } from "./document-path.js";
import { asMarkdown } from "./markdown.js";
import { SchemaExpander, SchemaTooLarge } from "./schema-expansion.js";

// Reads an OpenAPI 3.x document (a 2.0 one is converted before) into the ApiDescription the domain's mapping
// rules work on. Local $refs of path items, parameters, request bodies and security schemes are followed here;
// schemas go through the SchemaExpander.

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** A local `$ref` object followed (once per hop, at most a few hops), or the value itself. */
const deref = (document: unknown, value: unknown): unknown => {
  let node = value;
  for (let hops = 0; hops < 16 && isObject(node) && typeof node.$ref === "string"; hops++)
    node = resolvePointer(document, node.$ref);
  return node;
};

/** A server URL with its `{variables}` at their defaults. */
const serverUrl = (server: Record<string, unknown>): string => {
  const variables = isObject(server.variables) ? server.variables : {};
  return text(server.url).replace(/\{([^{}]*)\}/g, (whole, name: string) => {
    const variable = variables[name];
    if (!isObject(variable)) return whole;
    const fallback = Array.isArray(variable.enum) ? variable.enum[0] : undefined;
    return String(variable.default ?? fallback ?? whole);
  });
};

const absolute = (url: string, base: string | undefined): string => {
  if (url === "") return "";
  try {
    return new URL(url, base).href;
  } catch {
    return "";
  }
};

const securitySchemes = (document: Record<string, unknown>, baseUrl: string | undefined) => {
  const components = isObject(document.components) ? document.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  return Object.entries(schemes).map(([name, raw]): { name: string; scheme: DescribedSecurityScheme } => {
    const scheme = deref(document, raw);
    if (!isObject(scheme)) return { name, scheme: { type: "other", kind: "unknown" } };
    switch (scheme.type) {
      case "oauth2": {
        const flows = isObject(scheme.flows) ? scheme.flows : {};
        const described: Array<DescribedOAuthFlow> = [];
        for (const kind of ["authorizationCode", "clientCredentials", "implicit", "password"] as const) {
          const flow = flows[kind];
          if (isObject(flow))
            described.push({
              kind,
              authorizationUrl: absolute(text(flow.authorizationUrl), baseUrl),
              tokenUrl: absolute(text(flow.tokenUrl), baseUrl),
            });
        }
        return { name, scheme: { type: "oauth2", flows: described } };
      }
      case "apiKey":
        return { name, scheme: { type: "apiKey", in: text(scheme.in), name: text(scheme.name) } };
      case "http":
        return { name, scheme: { type: "http", scheme: text(scheme.scheme) } };
      default:
        return { name, scheme: { type: "other", kind: text(scheme.type) } };
    }
  });
};

const securityOf = (value: unknown): ReadonlyArray<SecurityRequirement> | undefined =>
  Array.isArray(value)
    ? value
        .filter(isObject)
        .map((requirement) =>
          Object.fromEntries(
            Object.entries(requirement).map(([name, scopes]) => [
              name,
              Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === "string") : [],
            ]),
          ),
        )
    : undefined;

const isJson = (mediaType: string) => /^application\/(?:[\w.+-]+\+)?json\b|^\*\/\*$/i.test(mediaType);
const isForm = (mediaType: string) => /^application\/x-www-form-urlencoded\b/i.test(mediaType);
const isMultipart = (mediaType: string) => /^multipart\/form-data\b/i.test(mediaType);
const isText = (mediaType: string) => /^text\/|[/+]xml\b/i.test(mediaType);

/**
 * The preferred media type of a `content` map and its schema and encoding (docs/api-rules.md §15a): JSON
 * first, then a form, multipart, text or XML, then any other (sent as a string or base64 bytes).
 */
const pickContent = (content: Record<string, unknown>) => {
  const mediaTypes = Object.keys(content);
  const mediaType =
    mediaTypes.find(isJson) ??
    mediaTypes.find(isForm) ??
    mediaTypes.find(isMultipart) ??
    mediaTypes.find(isText) ??
    mediaTypes[0];
  const entry = mediaType === undefined ? undefined : content[mediaType];
  return {
    mediaTypes,
    mediaType,
    schema: isObject(entry) ? entry.schema : undefined,
    encoding: isObject(entry) && isObject(entry.encoding) ? entry.encoding : undefined,
  };
};

/** The Encoding Objects of a form or multipart body, reduced to what a tool carries (valid values only). */
const bodyEncoding = (encoding: Record<string, unknown> | undefined): DescribedBody["encoding"] => {
  const out: Record<string, { style?: string; explode?: boolean; contentType?: string }> = {};
  for (const [name, raw] of Object.entries(encoding ?? {})) {
    if (!isObject(raw)) continue;
    const entry: { style?: string; explode?: boolean; contentType?: string } = {};
    if (typeof raw.style === "string") entry.style = raw.style;
    if (typeof raw.explode === "boolean") entry.explode = raw.explode;
    if (typeof raw.contentType === "string") entry.contentType = raw.contentType;
    if (Object.keys(entry).length > 0) out[name] = entry;
  }
  return out;
};

/** Reads a (converted) OpenAPI 3.x document. `warnings` collects what could be read past. */
export const describe = (
  document: Record<string, unknown>,
  specVersion: string,
  root: string,
  warnings: Array<FieldProblem>,
): ApiDescription => {
  const openapi30 = !specVersion.startsWith("3.1");
  const expander = new SchemaExpander(document, openapi30);
  const info = isObject(document.info) ? document.info : {};
  const servers = (Array.isArray(document.servers) ? document.servers : []).filter(isObject).map(serverUrl);
  const firstAbsolute = servers.map((s) => absolute(s, undefined)).find((s) => /^https?:/.test(s));
  const globalSecurity = securityOf(document.security) ?? [];
  const paths = isObject(document.paths) ? document.paths : {};
  const operations: Array<DescribedOperation> = [];

  for (const [path, rawItem] of Object.entries(paths)) {
    if (path.startsWith("x-")) continue;
    const item = deref(document, rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    // In document order, like everything the import reports.
    for (const method of Object.keys(item).filter((key) => (METHODS as ReadonlyArray<string>).includes(key))) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const location = locate(root, ["paths", path, method]);
      let problem: string | undefined;
      const schemaOf = (node: unknown): JsonObject => {
        try {
          return expander.expand(node);
        } catch (error) {
          if (!(error instanceof SchemaTooLarge)) throw error;
          problem ??= "its schemas grow too large once their $refs are inlined";
          return {};
        }
      };
      // Operation parameters override path-level ones of the same name and location.
      const merged = new Map<string, Record<string, unknown>>();
      for (const raw of [...shared, ...(Array.isArray(operation.parameters) ? operation.parameters : [])]) {
        const parameter = deref(document, raw);
        if (isObject(parameter) && typeof parameter.name === "string")
          merged.set(`${text(parameter.in)}:${parameter.name}`, parameter);
      }
      const parameters: Array<DescribedParameter> = [];
      for (const parameter of merged.values()) {
        const where = text(parameter.in);
        if (where !== "path" && where !== "query" && where !== "header" && where !== "cookie") continue;
        const schema = isObject(parameter.content) ? pickContent(parameter.content).schema : (parameter.schema ?? {});
        parameters.push({
          name: text(parameter.name),
          in: where,
          required: parameter.required === true || where === "path",
          description: asMarkdown(text(parameter.description)),
          schema: schemaOf(schema),
        });
      }
      let requestBody: DescribedBody | undefined;
      const body = deref(document, operation.requestBody);
      if (isObject(body)) {
        const content = isObject(body.content) ? body.content : {};
        const picked = pickContent(content);
        requestBody = {
          mediaTypes: picked.mediaTypes,
          mediaType: picked.mediaType,
          schema: picked.mediaType === undefined ? undefined : schemaOf(picked.schema ?? {}),
          encoding: bodyEncoding(picked.encoding),
          required: body.required === true,
        };
      }
      // The success answer's JSON schema (for the tool's outputSchema): the lowest 2xx with a JSON body.
      let responseSchema: JsonObject | undefined;
      const responses = isObject(operation.responses) ? operation.responses : {};
      // A long-running operation's 202 body describes the operation, not the answer its tool ends with.
      const longRunning = "202" in responses || operation["x-ms-long-running-operation"] === true;
      const successes = Object.keys(responses)
        .filter((status) => /^2(?:\d\d|XX)$/i.test(status) && !(longRunning && status === "202"))
        .sort((x, y) => (x.toUpperCase() < y.toUpperCase() ? -1 : 1));
      for (const status of successes) {
        const answer = deref(document, responses[status]);
        const content = isObject(answer) && isObject(answer.content) ? answer.content : undefined;
        const json = content === undefined ? undefined : Object.keys(content).find(isJson);
        const entry = json === undefined || content === undefined ? undefined : content[json];
        if (isObject(entry) && isObject(entry.schema)) {
          responseSchema = schemaOf(entry.schema);
          break;
        }
      }
      if (Array.isArray(operation.servers) && operation.servers.length > 0)
        warnings.push({
          path: `${location}.servers`,
          message: "the operation's own servers are not used: its tool calls the provider's baseURL",
        });
      operations.push({
        method,
        path,
        operationId: text(operation.operationId),
        summary: asMarkdown(text(operation.summary)),
        description: asMarkdown(text(operation.description)),
        parameters,
        requestBody,
        responseSchema,
        ...(longRunning ? { longRunning } : {}),
        security: securityOf(operation.security) ?? globalSecurity,
        problem,
      });
    }
  }
  if (isObject(document.webhooks) && Object.keys(document.webhooks).length > 0)
    warnings.push({
      path: locate(root, ["webhooks"]),
      message: "webhooks are calls the API makes, not operations a tool can call: not imported",
    });
  return {
    specVersion,
    title: text(info.title),
    description: asMarkdown(text(info.description)),
    servers,
    operations,
    securitySchemes: securitySchemes(document, firstAbsolute),
    warnings,
  };
};
