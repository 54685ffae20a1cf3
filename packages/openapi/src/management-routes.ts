import * as D from "@mcpsm/domain/schemas";
import type { Operation } from "@mcpsm/domain/use-cases";
import { Schema } from "effect";

// Every management route of the spec and of docs/api-rules.md §§8–10 as data: method, path, operation (and so
// scope), success status and the effect schemas of its bodies. The service binds a handler to each
// (apps/api/src/http/route-table.ts); the OpenAPI document is generated from the same list.

export type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** Groups of operations, in the order the document lists them. */
export const TAGS = {
  Servers: "MCP servers: providers, tools, resources and prompts composed into one MCP endpoint",
  "Server members": "Add or remove one tool, resource or prompt of a server at a time",
  "Server tokens": "Access tokens of an MCP server (for its /mcp endpoint, never for this API)",
  Providers: "Upstream REST APIs",
  "Provider tools": "The tools of a provider: one MCP tool maps to one HTTP method and path",
  "Provider prompts": "The MCP prompts of a provider",
  "Provider resources": "The MCP resources of a provider",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the syntax of a variable reference, not a template
  Variables: "Named values that tool headers reference as ${NAME}",
  Audit: "The audit trail: one event per successful management write",
  "Git connections": "Git hosts a server's configuration is pushed to, one commit per change (docs/api-rules.md §17)",
  Service: "Health, readiness and this description; no token needed",
  "MCP endpoint": "Each server's MCP endpoint (Streamable HTTP), described by the MCP specification",
} as const;
export type Tag = keyof typeof TAGS;

export interface ManagementRoute {
  readonly method: Method;
  /** Path template with `{name}` parameters (each an 11-character id), as in the OpenAPI document. */
  readonly path: string;
  readonly operation: Operation;
  readonly summary: string;
  readonly tag: Tag;
  /** Status of success (docs/api-rules.md §5): create 201 with Location, GET and PATCH 200, DELETE 204. */
  readonly status: 200 | 201 | 204;
  /** Schema of the request body (its envelope included). */
  readonly request?: Schema.Schema.Any;
  /** Schema of the success body (its envelope included); none for 204. */
  readonly response?: Schema.Schema.Any;
  /** Success answers carry `ETag: W/"<version>"`. */
  readonly etag?: boolean;
  /** `If-Match` is honoured (412 when it does not match). */
  readonly ifMatch?: boolean;
  /** A per-tenant (or per-parent) quota applies: 429 when it is exhausted. */
  readonly quota?: boolean;
  /** The query parameters, when the operation takes any. */
  readonly query?: Schema.Struct<Schema.Struct.Fields>;
  /** A dry run (`dryRun: true` in the body, or `?dryRun=true`) answers this status with the same body shape. */
  readonly dryRunStatus?: 200;
  /** Largest accepted request body, when it is not the service's 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Deepest accepted JSON nesting of the body, when it is not the service's 64 levels. */
  readonly maxBodyDepth?: number;
}

/**
 * Body limit of the two OpenAPI import routes: a description may be 10 MiB (docs/api-rules.md §15), and sent as
 * a JSON string its escaping and the envelope add to that; the reader measures the description itself.
 */
export const IMPORT_BODY_BYTES = 16 * 1024 * 1024;
/** A description nests deeper than a management body (the reader refuses past 256 levels). */
const IMPORT_BODY_DEPTH = 260;

/**
 * Nesting of a server import: a tool's JSON Schema sits four levels deeper in an export document
 * (`providers[i].tools[j]`) than in a tool write (`tool`), so a tool any write accepts also imports.
 */
const IMPORT_DOCUMENT_DEPTH = 68;

/** `{ <name>: schema }`: the envelope every body travels in. */
const envelope = <K extends string, S extends Schema.Schema.Any>(name: K, schema: S) =>
  Schema.Struct({ [name]: schema } as { [P in K]: S });

const list = <K extends string, S extends Schema.Schema.Any>(name: K, schema: S) =>
  envelope(name, Schema.Array(schema));

/** The five routes of a provider's tools, prompts or resources, which share their shape. */
const providerChildRoutes = (options: {
  readonly segment: "tools" | "prompts" | "resources";
  readonly param: "toolID" | "promptID" | "resourceID";
  readonly envelope: "tool" | "prompt" | "resource";
  readonly noun: string;
  readonly tag: Tag;
  readonly create: Schema.Schema.Any;
  readonly patch: Schema.Schema.Any;
  readonly record: Schema.Schema.Any;
  readonly quota?: boolean;
  readonly ops: { list: Operation; create: Operation; get: Operation; update: Operation; remove: Operation };
}): ReadonlyArray<ManagementRoute> => {
  const { segment, param, noun, tag, ops } = options;
  const base = `/providers/{id}/${segment}`;
  const child = `${base}/{${param}}`;
  const one = (schema: Schema.Schema.Any) => envelope(options.envelope, schema);
  return [
    {
      method: "GET",
      path: base,
      operation: ops.list,
      summary: `List a provider's ${noun}s`,
      tag,
      status: 200,
      response: list(segment, options.record),
    },
    {
      method: "POST",
      path: base,
      operation: ops.create,
      summary: `Create a ${noun} of a provider`,
      tag,
      status: 201,
      request: one(options.create),
      response: one(options.record),
      ...(options.quota ? { quota: true } : {}),
    },
    {
      method: "GET",
      path: child,
      operation: ops.get,
      summary: `Get a ${noun}`,
      tag,
      status: 200,
      response: one(options.record),
    },
    {
      method: "PATCH",
      path: child,
      operation: ops.update,
      summary: `Update a ${noun}`,
      tag,
      status: 200,
      request: one(options.patch),
      response: one(options.record),
    },
    { method: "DELETE", path: child, operation: ops.remove, summary: `Delete a ${noun}`, tag, status: 204 },
  ];
};

/** Every management route, in the order of the document. */
export const MANAGEMENT_ROUTES: ReadonlyArray<ManagementRoute> = [
  {
    method: "GET",
    path: "/servers",
    operation: "listServers",
    summary: "List MCP servers",
    tag: "Servers",
    status: 200,
    response: list("servers", D.ServerRecord),
  },
  {
    method: "POST",
    path: "/servers",
    operation: "createServer",
    summary: "Create an MCP server",
    tag: "Servers",
    status: 201,
    request: envelope("server", D.ServerCreate),
    response: envelope("server", D.ServerRecord),
    etag: true,
    quota: true,
  },
  {
    method: "GET",
    path: "/servers/{id}",
    operation: "getServer",
    summary: "Get an MCP server",
    tag: "Servers",
    status: 200,
    response: envelope("server", D.ServerRecord),
    etag: true,
  },
  {
    method: "PATCH",
    path: "/servers/{id}",
    operation: "updateServer",
    summary: "Update an MCP server",
    tag: "Servers",
    status: 200,
    request: envelope("server", D.ServerPatch),
    response: envelope("server", D.ServerRecord),
    etag: true,
    ifMatch: true,
  },
  {
    method: "DELETE",
    path: "/servers/{id}",
    operation: "deleteServer",
    summary: "Delete an MCP server (and its tokens)",
    tag: "Servers",
    status: 204,
    ifMatch: true,
  },

  {
    method: "GET",
    path: "/servers/{id}/tools",
    operation: "listServerTools",
    summary: "List the tools of a server",
    tag: "Server members",
    status: 200,
    response: list("tools", D.ToolRecord),
  },
  {
    method: "POST",
    path: "/servers/{id}/tools",
    operation: "addServerTool",
    summary: "Add a provider's tool to a server",
    tag: "Server members",
    status: 201,
    request: envelope("tool", D.ServerToolLink),
    response: envelope("tool", D.ToolRecord),
  },
  {
    method: "DELETE",
    path: "/servers/{id}/tools/{toolID}",
    operation: "removeServerTool",
    summary: "Remove a tool from a server",
    tag: "Server members",
    status: 204,
  },
  {
    method: "GET",
    path: "/servers/{id}/resources",
    operation: "listServerResources",
    summary: "List the resources of a server",
    tag: "Server members",
    status: 200,
    response: list("resources", D.ResourceRecord),
  },
  {
    method: "POST",
    path: "/servers/{id}/resources",
    operation: "addServerResource",
    summary: "Add a resource to a server",
    tag: "Server members",
    status: 201,
    request: envelope("resource", D.ServerResourceLink),
    response: envelope("resource", D.ResourceRecord),
  },
  {
    method: "DELETE",
    path: "/servers/{id}/resources/{resourceID}",
    operation: "removeServerResource",
    summary: "Remove a resource from a server",
    tag: "Server members",
    status: 204,
  },
  {
    method: "GET",
    path: "/servers/{id}/prompts",
    operation: "listServerPrompts",
    summary: "List the prompts of a server",
    tag: "Server members",
    status: 200,
    response: list("prompts", D.PromptRecord),
  },
  {
    method: "POST",
    path: "/servers/{id}/prompts",
    operation: "addServerPrompt",
    summary: "Add a prompt to a server",
    tag: "Server members",
    status: 201,
    request: envelope("prompt", D.ServerPromptLink),
    response: envelope("prompt", D.PromptRecord),
  },
  {
    method: "DELETE",
    path: "/servers/{id}/prompts/{promptID}",
    operation: "removeServerPrompt",
    summary: "Remove a prompt from a server",
    tag: "Server members",
    status: 204,
  },

  {
    method: "POST",
    path: "/servers/{id}/tokens",
    operation: "createServerToken",
    summary: "Create a server token (its value is shown only here)",
    tag: "Server tokens",
    status: 201,
    request: envelope("token", D.ServerTokenCreate),
    response: envelope("token", D.ServerTokenRecord),
    quota: true,
  },
  {
    method: "GET",
    path: "/servers/{id}/tokens",
    operation: "listServerTokens",
    summary: "List a server's tokens (without values)",
    tag: "Server tokens",
    status: 200,
    response: list("tokens", D.ServerTokenRecord),
  },
  {
    method: "GET",
    path: "/servers/{id}/tokens/{tokenID}",
    operation: "getServerToken",
    summary: "Get a server token (without its value)",
    tag: "Server tokens",
    status: 200,
    response: envelope("token", D.ServerTokenRecord),
  },
  {
    method: "DELETE",
    path: "/servers/{id}/tokens/{tokenID}",
    operation: "revokeServerToken",
    summary: "Revoke a server token",
    tag: "Server tokens",
    status: 204,
  },

  {
    method: "GET",
    path: "/providers",
    operation: "listProviders",
    summary: "List providers (own and PUBLIC), one page at a time",
    tag: "Providers",
    status: 200,
    query: D.ProviderListParameters,
    response: Schema.Struct({
      providers: Schema.Array(D.ProviderRecord),
      matchCount: Schema.Int.annotations({ description: "records matching the filters over all pages" }),
      nextToken: Schema.String.annotations({ description: 'pass as `token` for the next page; "" on the last page' }),
    }).annotations({ identifier: "ProviderPage" }),
  },
  {
    method: "POST",
    path: "/providers",
    operation: "createProvider",
    summary: "Create a provider",
    tag: "Providers",
    status: 201,
    request: envelope("provider", D.ProviderCreate),
    response: envelope("provider", D.ProviderRecord),
    etag: true,
    quota: true,
  },
  {
    method: "POST",
    path: "/providers/import",
    operation: "importProvider",
    summary: "Create a provider from an OpenAPI description (201), or preview it with dryRun (200)",
    tag: "Providers",
    status: 201,
    dryRunStatus: 200,
    request: envelope("import", D.ProviderImport),
    response: D.ImportResult,
    quota: true,
    maxBodyBytes: IMPORT_BODY_BYTES,
    maxBodyDepth: IMPORT_BODY_DEPTH,
  },
  {
    method: "POST",
    path: "/providers/{id}/import",
    operation: "resyncProvider",
    summary: "Re-sync a provider's imported tools with a new version of its OpenAPI description",
    tag: "Providers",
    status: 200,
    request: envelope("import", D.ProviderResync),
    response: D.ImportResult,
    quota: true,
    maxBodyBytes: IMPORT_BODY_BYTES,
    maxBodyDepth: IMPORT_BODY_DEPTH,
  },
  {
    method: "GET",
    path: "/providers/{id}",
    operation: "getProvider",
    summary: "Get a provider",
    tag: "Providers",
    status: 200,
    response: envelope("provider", D.ProviderRecord),
    etag: true,
  },
  {
    method: "PATCH",
    path: "/providers/{id}",
    operation: "updateProvider",
    summary: "Update a provider",
    tag: "Providers",
    status: 200,
    request: envelope("provider", D.ProviderPatch),
    response: envelope("provider", D.ProviderRecord),
    etag: true,
    ifMatch: true,
  },
  {
    method: "DELETE",
    path: "/providers/{id}",
    operation: "deleteProvider",
    summary: "Delete a provider",
    tag: "Providers",
    status: 204,
    ifMatch: true,
  },
  ...providerChildRoutes({
    segment: "tools",
    param: "toolID",
    envelope: "tool",
    noun: "tool",
    tag: "Provider tools",
    create: D.ToolCreate,
    patch: D.ToolPatch,
    record: D.ToolRecord,
    quota: true,
    ops: {
      list: "listProviderTools",
      create: "createProviderTool",
      get: "getProviderTool",
      update: "updateProviderTool",
      remove: "deleteProviderTool",
    },
  }),
  ...providerChildRoutes({
    segment: "prompts",
    param: "promptID",
    envelope: "prompt",
    noun: "prompt",
    tag: "Provider prompts",
    create: D.PromptCreate,
    patch: D.PromptPatch,
    record: D.PromptRecord,
    ops: {
      list: "listProviderPrompts",
      create: "createProviderPrompt",
      get: "getProviderPrompt",
      update: "updateProviderPrompt",
      remove: "deleteProviderPrompt",
    },
  }),
  ...providerChildRoutes({
    segment: "resources",
    param: "resourceID",
    envelope: "resource",
    noun: "resource",
    tag: "Provider resources",
    create: D.ResourceCreate,
    patch: D.ResourcePatch,
    record: D.ResourceRecord,
    ops: {
      list: "listProviderResources",
      create: "createProviderResource",
      get: "getProviderResource",
      update: "updateProviderResource",
      remove: "deleteProviderResource",
    },
  }),

  {
    method: "GET",
    path: "/variables",
    operation: "listVariables",
    summary: "List variables",
    tag: "Variables",
    status: 200,
    response: list("variables", D.VariableRecord),
  },
  {
    method: "POST",
    path: "/variables",
    operation: "createVariable",
    summary: "Create a variable",
    tag: "Variables",
    status: 201,
    request: envelope("variable", D.VariableCreate),
    response: envelope("variable", D.VariableRecord),
    quota: true,
  },
  {
    method: "GET",
    path: "/variables/{id}",
    operation: "getVariable",
    summary: "Get a variable",
    tag: "Variables",
    status: 200,
    response: envelope("variable", D.VariableRecord),
    etag: true,
  },
  {
    method: "PATCH",
    path: "/variables/{id}",
    operation: "updateVariable",
    summary: "Update a variable's value",
    tag: "Variables",
    status: 200,
    request: envelope("variable", D.VariablePatch),
    response: envelope("variable", D.VariableRecord),
    etag: true,
    ifMatch: true,
  },
  {
    method: "DELETE",
    path: "/variables/{id}",
    operation: "deleteVariable",
    summary: "Delete a variable",
    tag: "Variables",
    status: 204,
    ifMatch: true,
  },

  {
    method: "GET",
    path: "/audit-events",
    operation: "listAuditEvents",
    summary: "List the tenant's audit events, newest first, one page at a time",
    tag: "Audit",
    status: 200,
    query: D.AuditListParameters,
    response: D.AuditEventPage,
  },

  {
    method: "GET",
    path: "/providers/{id}/connections",
    operation: "listProviderConnections",
    summary: "List the upstream OAuth connections the tenant's MCP callers made to a provider (never a token)",
    tag: "Providers",
    status: 200,
    response: D.UpstreamConnectionList,
  },
  {
    method: "DELETE",
    path: "/providers/{id}/connections/{connectionID}",
    operation: "deleteProviderConnection",
    summary: "Delete an upstream OAuth connection: its caller is asked for consent again",
    tag: "Providers",
    status: 204,
  },
  // Server export and import (docs/api-rules.md §16).
  {
    method: "GET",
    path: "/servers/{id}/export",
    operation: "exportServer",
    summary: "Export a server as a portable document (no ids, no secrets)",
    tag: "Servers",
    status: 200,
    response: D.ServerExportDocument,
  },
  {
    method: "POST",
    path: "/servers/import",
    operation: "importServer",
    summary:
      "Create a server from an export document, reusing the tenant's providers (201), or preview it with dryRun=true (200)",
    tag: "Servers",
    status: 201,
    dryRunStatus: 200,
    query: D.ServerImportParameters,
    request: D.ServerExportDocument,
    response: D.ServerImportResult,
    etag: true,
    quota: true,
    maxBodyDepth: IMPORT_DOCUMENT_DEPTH,
  },
  // Git connections and a server's git sync (docs/api-rules.md §17).
  {
    method: "POST",
    path: "/git-connections",
    operation: "createGitConnection",
    summary: "Connect a git host (the token is write-only)",
    tag: "Git connections",
    status: 201,
    request: envelope("gitConnection", D.GitConnectionCreate),
    response: envelope("gitConnection", D.GitConnectionRecord),
    quota: true,
  },
  {
    method: "GET",
    path: "/git-connections",
    operation: "listGitConnections",
    summary: "List git connections",
    tag: "Git connections",
    status: 200,
    response: list("gitConnections", D.GitConnectionRecord),
  },
  {
    method: "GET",
    path: "/git-connections/{id}",
    operation: "getGitConnection",
    summary: "Get a git connection",
    tag: "Git connections",
    status: 200,
    response: envelope("gitConnection", D.GitConnectionRecord),
  },
  {
    method: "DELETE",
    path: "/git-connections/{id}",
    operation: "deleteGitConnection",
    summary: "Delete a git connection (the servers using it stop syncing)",
    tag: "Git connections",
    status: 204,
  },
  {
    method: "GET",
    path: "/servers/{id}/git-sync",
    operation: "getServerGitSync",
    summary: "Where the git sync of a server stands",
    tag: "Git connections",
    status: 200,
    response: envelope("gitSync", D.GitSyncRecord),
  },
];

/** The names of a path template's parameters: `/providers/{id}/tools/{toolID}` → `["id", "toolID"]`. */
export const pathParameters = (path: string): ReadonlyArray<string> =>
  Array.from(path.matchAll(/\{([^{}]+)\}/g), (m) => m[1]!);
