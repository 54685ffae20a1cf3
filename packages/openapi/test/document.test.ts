import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ALL_SCOPES } from "@mcpsm/domain";
import { SCOPES } from "@mcpsm/domain/schemas";
import { OPERATIONS, requiredScope } from "@mcpsm/domain/use-cases";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { DEFAULT_AUTH_URL, MANAGEMENT_ROUTES, openApiDocument, problemStatuses, renderDocument } from "../src/index.js";

const root = join(import.meta.dirname, "..", "..", "..");
/** The committed copy that reviews see as a diff (README: "API description"). */
const COMMITTED = join(root, "docs", "openapi.json");

const doc = openApiDocument();
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Every operation of the document with its path and method. */
const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ path, method, op })),
  );

/** Follows a local `$ref` such as `#/components/schemas/Server`. */
const resolve = (ref: string): unknown =>
  ref
    .slice(2)
    .split("/")
    .map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);

const refsOf = (node: unknown, out: Array<string> = []): Array<string> => {
  if (Array.isArray(node)) for (const n of node) refsOf(n, out);
  else if (node !== null && typeof node === "object")
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") out.push(value);
      else refsOf(value, out);
    }
  return out;
};

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)", async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("every $ref resolves, and every component schema compiles as JSON Schema 2020-12 (strict)", () => {
    for (const ref of refsOf(doc)) {
      expect(ref.startsWith("#/"), ref).toBe(true);
      expect(resolve(ref), ref).toBeDefined();
    }
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats.default(ajv);
    // The schemas live under the document's `components`, where their `$ref`s point.
    ajv.addKeyword("components");
    const base = "https://mcpsm.invalid/openapi.json";
    ajv.addSchema({ $id: base, components: { schemas: doc.components.schemas } });
    for (const name of Object.keys(doc.components.schemas))
      expect(ajv.getSchema(`${base}#/components/schemas/${name}`), name).toBeTypeOf("function");
  });

  it("the committed copy docs/openapi.json is the generated document (regenerate: ./run openapi)", () => {
    expect(readFileSync(COMMITTED, "utf8")).toBe(renderDocument());
  });

  it("has every management route with its operation id, and every operation once", () => {
    const byOperation = new Map(operations().map((o) => [o.op.operationId, o]));
    for (const route of MANAGEMENT_ROUTES) {
      const found = byOperation.get(route.operation);
      expect(found, route.operation).toBeDefined();
      expect(found!.path).toBe(route.path);
      expect(found!.method).toBe(route.method.toLowerCase());
    }
    expect(MANAGEMENT_ROUTES.map((r) => r.operation).sort()).toEqual([...OPERATIONS].sort());
    const ids = operations().map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("the spec's endpoints (§4) are all there", () => {
    const spec = [
      "get /servers",
      "post /servers",
      "get /servers/{id}",
      "patch /servers/{id}",
      "delete /servers/{id}",
      "post /servers/{id}/tokens",
      "get /providers",
      "post /providers",
      "get /providers/{id}",
      "patch /providers/{id}",
      "delete /providers/{id}",
      "post /providers/{id}/prompts",
      "get /providers/{id}/prompts/{promptID}",
      "get /variables",
      "post /variables",
      "patch /variables/{id}",
      "delete /variables/{id}",
    ];
    const have = new Set(operations().map((o) => `${o.method} ${o.path}`));
    for (const endpoint of spec) expect(have.has(endpoint), endpoint).toBe(true);
  });

  it("the reserved paths need no token", () => {
    for (const path of ["/healthz", "/readyz", "/openapi.json", "/docs", "/docs/{asset}", "/.well-known/jwks.json"]) {
      expect(doc.paths[path]?.get, path).toBeDefined();
      expect(doc.paths[path].get.security).toEqual([]);
    }
  });

  it("the security scheme is the OAuth 2.0 authorization code flow with every scope of spec §5", () => {
    const scheme = doc.components.securitySchemes.oauth2;
    expect(scheme.type).toBe("oauth2");
    const flow = scheme.flows.authorizationCode;
    expect(flow.authorizationUrl).toBe(`${DEFAULT_AUTH_URL}/oauth2/auth`);
    expect(flow.tokenUrl).toBe(`${DEFAULT_AUTH_URL}/oauth2/token`);
    expect(Object.keys(flow.scopes)).toEqual([...ALL_SCOPES]);
    expect(flow.scopes).toEqual(SCOPES);
    const custom = openApiDocument({ authUrl: "https://login.acme.test/base/" });
    expect(custom.components.securitySchemes.oauth2.flows.authorizationCode).toMatchObject({
      authorizationUrl: "https://login.acme.test/base/oauth2/auth",
      tokenUrl: "https://login.acme.test/base/oauth2/token",
    });
  });

  it("each management operation names the scope of the policy", () => {
    for (const route of MANAGEMENT_ROUTES) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      const scope = requiredScope(route.operation);
      expect(op.security).toEqual([{ oauth2: [scope] }, { bearerToken: [scope] }]);
      expect(op["x-required-scope"]).toBe(scope);
    }
    expect(doc.paths["/servers/{id}"].patch.security[0].oauth2).toEqual(["server:update"]);
  });

  it("declares the success status of docs/api-rules.md §5 and the problem answers of each route", () => {
    for (const route of MANAGEMENT_ROUTES) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      // A POST creates (201), except those that create nothing: a re-sync (it changes the provider it names), a
      // shape preview (stores nothing), a revision restore (a new version of the server) and an approval's
      // decision (200).
      const createsNothing = ["resyncProvider", "previewToolShape", "restoreServerRevision", "decideApproval"];
      const expected =
        route.method === "POST" && !createsNothing.includes(route.operation)
          ? "201"
          : route.method === "DELETE"
            ? "204"
            : "200";
      expect(String(route.status), route.operation).toBe(expected);
      // A dry run's 200 (the import routes) is declared beside the success status.
      if (route.dryRunStatus !== undefined)
        expect(Object.keys(op.responses[route.dryRunStatus].content)).toEqual(["application/json"]);
      const statuses = Object.keys(op.responses).filter((s) => s !== String(route.dryRunStatus));
      expect(statuses[0], route.operation).toBe(expected);
      expect(statuses.slice(1)).toEqual(problemStatuses(route).map(String));
      for (const status of statuses.slice(1)) {
        const response = resolve(op.responses[status].$ref) as { content: Record<string, unknown> };
        expect(Object.keys(response.content)).toEqual(["application/problem+json"]);
      }
      const success = op.responses[expected];
      if (expected === "204") expect(success.content).toBeUndefined();
      else expect(Object.keys(success.content)).toEqual(["application/json"]);
      if (expected === "201") expect(success.headers.Location.required).toBe(true);
      for (const s of ["401", "403", "500", "503"]) expect(statuses, route.operation).toContain(s);
    }
    // Spot checks of docs/api-rules.md: If-Match on server/provider writes, quotas on creates, bodies 413/415.
    expect(Object.keys(doc.paths["/servers/{id}"].patch.responses)).toEqual(
      expect.arrayContaining(["400", "404", "409", "412", "413", "415"]),
    );
    expect(Object.keys(doc.paths["/variables"].post.responses)).toContain("429");
    expect(Object.keys(doc.paths["/servers"].get.responses)).not.toContain("400");
    expect(doc.paths["/providers/{id}"].get.responses[200].headers.ETag.required).toBe(true);
  });

  it("describes the provider list's pagination parameters and its page", () => {
    const op = doc.paths["/providers"].get;
    const names = op.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(["limit", "token", "nameContains", "baseURLContains", "apiType", "visibility"]);
    for (const p of op.parameters) expect(p).toMatchObject({ in: "query", required: false });
    const limit = op.parameters[0];
    expect(limit.schema).toMatchObject({ default: 50, minimum: 1 });
    const page = resolve(op.responses[200].content["application/json"].schema.$ref) as {
      required: Array<string>;
      properties: Record<string, unknown>;
    };
    expect(page.required).toEqual(["providers", "matchCount", "nextToken"]);
  });

  it("uses the spec's field names in the records and write shapes", () => {
    const schemas = doc.components.schemas;
    const fields = (name: string) => Object.keys(schemas[name].properties);
    expect(fields("Server")).toEqual([
      "id",
      "createdAt",
      "updatedAt",
      "name",
      "description",
      "requestHeadersProxyEnabled",
      "dynamicToolDiscoveryEnabled",
      "maxResultTokens",
      "version",
      "gitProvider",
      "gitRepoFullName",
      "approvalPolicy",
      "providers",
      "resources",
      "prompts",
    ]);
    expect(fields("ServerCreate")).toEqual(
      expect.arrayContaining(["name", "instructions", "version", "providers", "resources", "prompts"]),
    );
    expect(fields("Provider")).toEqual(
      expect.arrayContaining([
        "apiType",
        "visibilityType",
        "baseURL",
        "documentURL",
        "iconURL",
        "secretPrefix",
        "tools",
        "oauth2Config",
      ]),
    );
    expect(fields("ProviderOAuth2Config")).toEqual(["clientID", "authURL", "tokenURL"]);
    expect(fields("ProviderCreate")).toContain("oauth2Config");
    expect(fields("ProviderTool")).toEqual(
      expect.arrayContaining([
        "providerID",
        "method",
        "path",
        "pathArgsJSONSchema",
        "queryArgsJSONSchema",
        "reqBodyJSONSchema",
        "headers",
        "oauth2Scopes",
      ]),
    );
    expect(fields("ServerToken")).toEqual(["id", "serverID", "createdAt", "expiresAt", "name", "value"]);
    expect(fields("Variable")).toEqual(["id", "createdAt", "updatedAt", "type", "value", "name", "perCaller"]);
    expect(fields("VariablePatch")).toEqual(["value", "perCaller"]);
    expect(schemas.Server.properties.createdAt).toMatchObject({ type: "string", format: "date-time" });
    expect(schemas.Server.properties.version).toMatchObject({ type: "integer", format: "int32" });
    expect(schemas.ProviderResource.properties.size).toMatchObject({ type: "integer", format: "int64" });
    expect(schemas.ProviderCreate.required).toEqual(["baseURL", "name"]);
    expect(schemas.ProviderCreate.properties.baseURL).toMatchObject({ format: "uri" });
    expect(schemas.Id).toMatchObject({ type: "string", pattern: "^[A-Za-z0-9]{11}$" });
  });

  it("is the same document on every call (stable output)", () => {
    expect(renderDocument()).toBe(renderDocument());
    expect(JSON.stringify(doc)).not.toContain("/schemas/unknown");
  });
});
