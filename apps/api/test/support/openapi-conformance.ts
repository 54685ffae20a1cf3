import { appendFileSync } from "node:fs";
import { openApiDocument } from "@mcpsm/openapi";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

// Every response the HTTP suite receives is checked against the OpenAPI document (the one the service serves
// with its default settings): the status must be declared for that operation, the media type must be one the
// answer declares, the body must match its schema, and required headers must be there. A path the document
// does not know must answer its 404 problem; a method a documented path does not support, its 405 problem
// with an `Allow` that lists exactly the documented methods. Anything else fails the request's test.

// biome-ignore lint/suspicious/noExplicitAny: the document is free-form JSON
type Json = any;

const doc: Json = openApiDocument();
const BASE = "https://mcpsm.invalid/openapi.json";
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addSchema({ ...doc, $id: BASE });

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** `/providers/{id}/tools/{toolID}` matched literally except for its parameters; fewer parameters first. */
const templates = Object.keys(doc.paths)
  .map((template) => ({
    template,
    params: (template.match(/\{/g) ?? []).length,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^{}]+\\?\}/g, "[^/]+")}$`),
  }))
  .sort((a, b) => a.params - b.params);

const pointer = (...parts: ReadonlyArray<string>) =>
  `#/${parts.map((p) => encodeURIComponent(p.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/")}`;

const resolveRef = (node: Json): Json => {
  if (node?.$ref === undefined) return node;
  const path = (node.$ref as string)
    .slice(2)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  return path.reduce((n: Json, key) => n?.[key], doc);
};

const validators = new Map<string, ValidateFunction>();
/** The compiled validator of the schema at `at` (a pointer into the document). */
const validatorAt = (at: string): ValidateFunction => {
  let validate = validators.get(at);
  if (validate === undefined) {
    validate = ajv.getSchema(`${BASE}${at}`);
    if (validate === undefined) throw new Error(`no schema at ${at}`);
    validators.set(at, validate);
  }
  return validate;
};

/**
 * With OPENAPI_COVERAGE_FILE set, each (operation, status) pair the suite sees is appended to that file once per
 * test file, to list the declared answers that no test provokes.
 */
const observed = new Set<string>();
const observe = (operationId: string, status: string) => {
  const file = process.env.OPENAPI_COVERAGE_FILE;
  const key = `${operationId} ${status}`;
  if (file === undefined || observed.has(key)) return;
  observed.add(key);
  appendFileSync(file, `${key}\n`);
};

/** What the checker needs of an answer. */
export interface ObservedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

const mediaType = (headers: Headers) => (headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();

/** Where a response object of the document sits, so its schemas can be addressed by pointer. */
const responseLocation = (responses: Json, status: string, base: ReadonlyArray<string>): ReadonlyArray<string> => {
  const entry = responses[status];
  if (entry?.$ref === undefined) return [...base, status];
  return (entry.$ref as string)
    .slice(2)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
};

/** The problems of `res` against the response object at `location` (empty when it conforms). */
const checkAgainst = (location: ReadonlyArray<string>, res: ObservedResponse): Array<string> => {
  const response = location.reduce((n: Json, key) => n?.[key], doc);
  const problems: Array<string> = [];
  for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
    const declared = resolveRef(header);
    const value = res.headers.get(name);
    if (value === null) {
      if (declared.required) problems.push(`required header ${name} is missing`);
      continue;
    }
    const at = header.$ref === undefined ? pointer(...location, "headers", name, "schema") : `${header.$ref}/schema`;
    const validate = validatorAt(at);
    const typed =
      declared.schema?.type === "integer" || declared.schema?.$ref?.endsWith("/Int") ? Number(value) : value;
    if (!validate(typed)) problems.push(`header ${name}: '${value}' ${ajv.errorsText(validate.errors)}`);
  }
  const content = response.content as Record<string, unknown> | undefined;
  if (content === undefined) {
    if (res.text !== "") problems.push(`a body was sent where none is declared: ${res.text.slice(0, 200)}`);
    return problems;
  }
  const type = mediaType(res.headers);
  if (!(type in content)) {
    problems.push(`content type '${type}' is not one of ${Object.keys(content).join(", ")}`);
    return problems;
  }
  if (!/[/+]json$/.test(type)) return problems;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    problems.push(`the body is not JSON: ${res.text.slice(0, 200)}`);
    return problems;
  }
  const validate = validatorAt(pointer(...location, "content", type, "schema"));
  if (!validate(body))
    problems.push(
      `the body does not match the schema: ${ajv.errorsText(validate.errors, { separator: "; " })} in ${res.text.slice(0, 400)}`,
    );
  return problems;
};

/** The problems of one exchange against the document (empty when it conforms). */
export const conformanceProblems = (method: string, url: string, res: ObservedResponse): Array<string> => {
  const path = new URL(url, "http://x").pathname;
  const match = templates.find((t) => t.pattern.test(path));
  if (match === undefined) {
    if (res.status !== 404)
      return [`no path of the document matches ${path}, yet the answer is ${res.status}, not 404`];
    return checkAgainst(["components", "responses", "NotFound"], res);
  }
  const item = doc.paths[match.template];
  const operation = item[method.toLowerCase()];
  if (operation === undefined) {
    const documented = METHODS.filter((m) => m in item).map((m) => m.toUpperCase());
    if (res.status !== 405)
      return [
        `${method} is not documented for ${match.template} (only ${documented.join(", ")}), yet the answer is ${res.status}, not 405`,
      ];
    const allowed = (res.headers.get("allow") ?? "")
      .split(",")
      .map((m) => m.trim().toUpperCase())
      .filter((m) => m !== "" && m !== "HEAD");
    const problems = checkAgainst(["components", "responses", "MethodNotAllowed"], res);
    if ([...allowed].sort().join() !== [...documented].sort().join())
      problems.push(`Allow '${res.headers.get("allow")}' differs from the documented methods ${documented.join(", ")}`);
    return problems;
  }
  const status = String(res.status);
  observe(operation.operationId, status);
  if (operation.responses[status] === undefined) {
    // A `default` answer is the document saying "described elsewhere" (the MCP endpoint).
    if (operation.responses.default !== undefined) return [];
    return [
      `${res.status} is not a declared answer of ${operation.operationId} (${Object.keys(operation.responses).join(", ")}): ${res.text.slice(0, 300)}`,
    ];
  }
  return checkAgainst(
    responseLocation(operation.responses, status, ["paths", match.template, method.toLowerCase(), "responses"]),
    res,
  );
};

/** Throws when the exchange does not conform; the message names the request and every problem. */
export const assertConforms = (method: string, url: string, res: ObservedResponse): void => {
  const problems = conformanceProblems(method, url, res);
  if (problems.length > 0)
    throw new Error(
      `OpenAPI conformance: ${method} ${new URL(url, "http://x").pathname} → ${res.status}\n  - ${problems.join("\n  - ")}`,
    );
};

/** A `fetch` that checks every answer against the document (for the typed client in tests). */
export const conformingFetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
  const request = new Request(input, init);
  const response = await fetch(request);
  const text = await response.clone().text();
  assertConforms(request.method, request.url, { status: response.status, headers: response.headers, text });
  return response;
};
