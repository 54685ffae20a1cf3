import type { Operation } from "@mcpsm/domain/use-cases";
import type { Schema } from "effect";

// What the document and the router need to know of a management route, as data: method, path, operation (and
// so scope), success status and the effect schemas of its bodies.

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
  Usage: "What agents do: the tool-call log of each server and usage over time (docs/api-rules.md §24)",
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
export const IMPORT_BODY_DEPTH = 260;

/**
 * Nesting of a server import: a tool's JSON Schema sits four levels deeper in an export document
 * (`providers[i].tools[j]`) than in a tool write (`tool`), so a tool any write accepts also imports.
 */
export const IMPORT_DOCUMENT_DEPTH = 68;

/** The names of a path template's parameters: `/providers/{id}/tools/{toolID}` → `["id", "toolID"]`. */
export const pathParameters = (path: string): ReadonlyArray<string> =>
  Array.from(path.matchAll(/\{([^{}]+)\}/g), (m) => m[1]!);
