import * as D from "@mcpsm/domain/schemas";
import { requiredScope } from "@mcpsm/domain/use-cases";
import { JSONSchema, type Schema, type SchemaAST } from "effect";
import { MANAGEMENT_ROUTES } from "./operations/management-operations.js";
import { type ManagementRoute, type Method, pathParameters, TAGS } from "./operations/management-route.js";
import { PROBLEM_STATUSES, type ProblemStatus, Problem, problemOf } from "./problem-schema.js";
import * as W from "./wire-schemas.js";
import {
  headerRef,
  JSON_TYPE,
  managementOperation,
  RATE_LIMIT_HEADERS,
  responseRef,
  schemaRegistry,
} from "./document/management-operation.js";
export { problemStatuses } from "./document/management-operation.js";

/** What varies between deployments. */
export interface DocumentOptions {
  /**
   * Base URL of the OAuth 2.0 authorization server: the flows use `{authUrl}/oauth2/auth` and
   * `{authUrl}/oauth2/token` (spec §5). The service takes it from `AUTH_URL`.
   */
  readonly authUrl?: string;
}

/** The authorization server named when none is configured (the committed document uses it). */
export const DEFAULT_AUTH_URL = "https://auth.example.com";

/** The version of the interface (spec §9). */
export const API_VERSION = "1.0.0";

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is free-form JSON
export type OpenApiDocument = Record<string, any>;

const PROBLEM_TYPE = "application/problem+json";

const DESCRIPTION = `Register REST APIs as **providers** with **tools**, compose them into **MCP servers**, and mint
**server tokens** for the servers' MCP endpoints.

**Authentication.** Every management operation needs \`Authorization: Bearer <access token>\`: an OAuth 2.0
access token (a JWT) that carries the operation's scope (shown on each operation). Server tokens are never
accepted here.

**Errors** are RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\` and the request's
\`requestId\`; validation failures list every problem in \`errors\` (the first 100, with \`errorCount\` saying how many were found). Checks run in this order: the client address's
rate limit (429), authentication (401), the tenant's rate limit (429), scope (403), request validation (400, 413, 415), existence (404), then conflicts (409, 412) and quotas
(429). A path that names no resource answers 404, and a method that a path does not support answers 405 with an
\`Allow\` header (\`#/components/responses/NotFound\` and \`#/components/responses/MethodNotAllowed\`).

**Writes** carry their record in an envelope (\`{"server": {...}}\`). Output-only fields in a write are ignored;
any other unknown field is refused. PATCH replaces the fields it names. Servers and providers carry a
\`version\` and an \`ETag\`; \`If-Match\` makes a PATCH or DELETE conditional (412).

**Limits.** Requests are rate limited per client address and per tenant: over the budget an operation
answers 429 with \`Retry-After\`, and answers carry \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\`
and \`RateLimit-Policy\`. Creates beyond a per-tenant quota answer 429 too (without \`Retry-After\`). Bodies are at
most 1 MiB and 64 levels deep; request heads at most 16 KiB (431 beyond, answered by the HTTP server itself).

**Pages.** \`GET /providers\` returns one page with \`matchCount\` and \`nextToken\`; pass \`nextToken\` back as
\`token\` (with the same filters) until it is "".

Every response carries \`X-Request-Id\`.`;

/** The OpenAPI 3.1 document of the service, generated from the route list and the domain's effect schemas. */
export const openApiDocument = (options: DocumentOptions = {}): OpenApiDocument => {
  const authUrl = (options.authUrl ?? DEFAULT_AUTH_URL).replace(/\/+$/, "");
  const schemas = schemaRegistry();
  const idSchema = schemas.of(D.Id);
  const requiredHeader = (schema: { readonly ast: SchemaAST.AST }) => ({ required: true, schema: schemas.of(schema) });

  /** An operation of a reserved path: no token, a fixed answer. */
  const reservedOperation = (
    operationId: string,
    summary: string,
    description: string,
    ok: { readonly type: string; readonly schema: Schema.Schema.Any },
    problems: ReadonlyArray<ProblemStatus>,
    extra: Record<string, unknown> = {},
  ) => ({
    operationId,
    summary,
    description,
    tags: ["Service"],
    security: [],
    ...extra,
    responses: {
      200: {
        description: "OK",
        headers: { "X-Request-Id": headerRef("X-Request-Id"), ...RATE_LIMIT_HEADERS },
        content: { [ok.type]: { schema: schemas.of(ok.schema) } },
      },
      ...Object.fromEntries(problems.map((status) => [status, responseRef(PROBLEM_STATUSES[status].name)])),
    },
  });

  const paths: Record<string, Partial<Record<Lowercase<Method>, unknown>>> = {};
  for (const route of MANAGEMENT_ROUTES) {
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase() as Lowercase<Method>] = managementOperation(schemas, route);
    paths[route.path] = item;
  }
  paths["/healthz"] = {
    get: reservedOperation(
      "health",
      "Liveness",
      "200 while the process runs.",
      { type: JSON_TYPE, schema: W.Health },
      [500],
    ),
  };
  paths["/readyz"] = {
    get: reservedOperation(
      "readiness",
      "Readiness",
      "200 when the store answers, else 503 (the process stays up and recovers by itself).",
      { type: JSON_TYPE, schema: W.Readiness },
      [500, 503],
    ),
  };
  paths["/openapi.json"] = {
    get: reservedOperation(
      "openApiDocument",
      "This document",
      "The OpenAPI 3.1 description of the service, generated from the schemas it validates with.",
      { type: JSON_TYPE, schema: W.OpenApiObject },
      [429, 500],
    ),
  };
  paths["/docs"] = {
    get: reservedOperation(
      "apiReference",
      "Interactive API reference",
      "An HTML page that renders this document; it loads its scripts and styles from /docs/ only.",
      { type: "text/html", schema: W.HtmlPage },
      [429, 500],
    ),
  };
  paths["/docs/{asset}"] = {
    get: reservedOperation(
      "apiReferenceAsset",
      "A file of the API reference page",
      "The scripts, style sheet, OAuth 2.0 redirect page and icon of the API reference, served by the service itself.",
      { type: "text/javascript", schema: W.Asset },
      [404, 429, 500],
      {
        parameters: [{ name: "asset", in: "path", required: true, schema: schemas.of(W.AssetName) }],
      },
    ),
  };
  // The same route answers the other kinds of file.
  const assetContent = (
    paths["/docs/{asset}"].get as { responses: Record<string, { content: Record<string, unknown> }> }
  ).responses[200]!.content;
  for (const type of ["text/css", "text/html", "image/png"]) assetContent[type] = { schema: schemas.of(W.Asset) };
  paths["/console"] = {
    get: reservedOperation(
      "console",
      "Web console",
      "The service's web console (issue 19): providers, servers, tokens, variables and the audit trail in the browser. It loads its script and style sheet from /console/ only and calls this API with the signed-in access token.",
      { type: "text/html", schema: W.HtmlPage },
      [404, 429, 500],
    ),
  };
  paths["/console/{asset}"] = {
    get: reservedOperation(
      "consoleAsset",
      "A file of the web console",
      "The console's script and style sheet (content-hashed names, cached for a year), served by the service itself.",
      { type: "text/javascript", schema: W.Asset },
      [404, 429, 500],
      {
        parameters: [{ name: "asset", in: "path", required: true, schema: schemas.of(W.AssetName) }],
      },
    ),
  };
  (paths["/console/{asset}"].get as { responses: Record<string, { content: Record<string, unknown> }> })
    .responses[200]!.content["text/css"] = { schema: schemas.of(W.Asset) };
  paths["/.well-known/jwks.json"] = {
    get: reservedOperation(
      "devAuthKeys",
      "Dev-auth public keys",
      "Only in dev-auth mode (no AUTH_* settings): the key set that verifies the tokens `./run token` mints. Otherwise 404.",
      { type: JSON_TYPE, schema: W.JwkSet },
      [404, 429, 500],
    ),
  };

  // The MCP endpoint of each server: the MCP specification describes its messages, not this document.
  const serverIdParameter = {
    name: "serverId",
    in: "path",
    required: true,
    description: "id of the MCP server",
    schema: idSchema,
  };
  const mcpOperation = (method: string, what: string) => ({
    operationId: `mcp${method}`,
    summary: `MCP Streamable HTTP: ${what}`,
    description:
      "The MCP endpoint of a server (stateless Streamable HTTP). Its requests and answers are JSON-RPC messages as the MCP specification defines them; a 401 names the protected resource metadata in WWW-Authenticate.",
    tags: ["MCP endpoint"],
    externalDocs: {
      description: "MCP specification: transports",
      url: "https://modelcontextprotocol.io/specification",
    },
    security: [{ serverToken: [] }, { oauth2: [] }],
    parameters: [serverIdParameter],
    responses: { default: { description: "an MCP Streamable HTTP answer (application/json or text/event-stream)" } },
  });
  paths["/mcp/{serverId}"] = {
    post: mcpOperation("Post", "send a JSON-RPC message"),
    get: mcpOperation("Get", "open a server-to-client stream"),
    delete: mcpOperation("Delete", "end a session"),
  };
  paths["/.well-known/oauth-protected-resource/mcp/{serverId}"] = {
    get: {
      ...reservedOperation(
        "mcpResourceMetadata",
        "Protected resource metadata of an MCP endpoint",
        "RFC 9728 metadata: the MCP endpoint's resource URL and the authorization servers that issue tokens for it.",
        { type: JSON_TYPE, schema: W.ResourceMetadata },
        [429],
        { parameters: [serverIdParameter] },
      ),
      tags: ["MCP endpoint"],
    },
  };

  // The service's own OAuth authorization server for its MCP endpoints (MCP_OAUTH_SERVER; on in dev-auth
  // mode): its metadata documents, which link every other endpoint under /oauth/ (oidc-provider's).
  const authorizationServerOperation = (operationId: string, summary: string, standard: string) => ({
    get: {
      operationId,
      summary,
      description: `${standard} metadata of the service as the OAuth 2.1 authorization server of its MCP endpoints (issuer: the public URL; registration, authorization, token, JWKS and revocation endpoints under /oauth/). Served only when MCP_OAUTH_SERVER is on (the default in dev-auth mode); 404 otherwise.`,
      tags: ["MCP endpoint"],
      security: [],
      responses: {
        default: { description: "the authorization server metadata (application/json), or 404 when it is off" },
      },
    },
  });
  paths["/.well-known/oauth-authorization-server"] = authorizationServerOperation(
    "mcpAuthorizationServerMetadata",
    "OAuth authorization server metadata (RFC 8414)",
    "RFC 8414",
  );
  paths["/.well-known/openid-configuration"] = authorizationServerOperation(
    "mcpOpenIdConfiguration",
    "OpenID Provider metadata (the same authorization server)",
    "OpenID Connect Discovery",
  );

  const problemResponse = (status: ProblemStatus) => {
    const headers: Record<string, unknown> = { "X-Request-Id": headerRef("X-Request-Id") };
    if (status === 401) headers["WWW-Authenticate"] = requiredHeader(W.WwwAuthenticate);
    if (status === 403) headers["WWW-Authenticate"] = { schema: schemas.of(W.WwwAuthenticate) };
    if (status === 405) headers.Allow = requiredHeader(W.Allow);
    if (status === 429) {
      headers["Retry-After"] = {
        schema: schemas.of(W.RetryAfter),
        description: "present when a rate limit (not a quota) was hit",
      };
      Object.assign(headers, RATE_LIMIT_HEADERS);
    }
    return {
      description: `${PROBLEM_STATUSES[status].title}: ${PROBLEM_STATUSES[status].codes.join(", ")}`,
      headers,
      content: { [PROBLEM_TYPE]: { schema: schemas.of(problemOf(status)) } },
    };
  };
  const statuses = Object.keys(PROBLEM_STATUSES).map(Number) as Array<ProblemStatus>;
  const responses = Object.fromEntries(statuses.map((s) => [PROBLEM_STATUSES[s].name, problemResponse(s)]));
  // The general problem shape, for clients that handle every error alike.
  schemas.of(Problem);
  const headers = {
    "X-Request-Id": { schema: schemas.of(W.RequestId) },
    "RateLimit-Limit": { schema: schemas.of(W.RateLimitLimit) },
    "RateLimit-Remaining": { schema: schemas.of(W.RateLimitRemaining) },
    "RateLimit-Reset": { schema: schemas.of(W.RateLimitReset) },
    "RateLimit-Policy": { schema: schemas.of(W.RateLimitPolicy) },
  };
  const ifMatch = {
    name: "If-Match",
    in: "header",
    required: false,
    description: "makes the write conditional on the record's current ETag",
    schema: schemas.of(W.IfMatch),
  };

  return {
    openapi: "3.1.1",
    info: {
      title: "MCP Server Management Service",
      version: API_VERSION,
      description: DESCRIPTION,
    },
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: schemas.sorted(),
      responses,
      parameters: { IfMatch: ifMatch },
      headers,
      securitySchemes: {
        oauth2: {
          type: "oauth2",
          description: "OAuth 2.0 authorization code flow; each operation names the scope it needs.",
          flows: {
            authorizationCode: {
              authorizationUrl: `${authUrl}/oauth2/auth`,
              tokenUrl: `${authUrl}/oauth2/token`,
              scopes: { ...D.SCOPES },
            },
          },
        },
        serverToken: {
          type: "http",
          scheme: "bearer",
          description:
            "For /mcp/{serverId} only: a server token of that server (mcps_…), or an OAuth access token whose audience is the server's URL.",
        },
        bearerToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description:
            "An access token obtained elsewhere (in dev-auth mode: `./run token`). It must carry the scope that the operation's oauth2 requirement names.",
        },
      },
    },
  };
};
