import type { ToolRow } from "../storage/rows.js";

// The product rules behind a stored tool's MCP face: its three argument schemas become the properties
// `pathArgs`, `queryArgs` and `bodyArgs` of one arguments object, and its HTTP method says whether a call
// reads, destroys or may be repeated. The MCP wire shape built from them lives in @mcpsm/mcp-runtime.

/** The property of the MCP arguments object that carries each part of the upstream request. */
export const ARGUMENT_PARTS = ["pathArgs", "queryArgs", "bodyArgs"] as const;
export type ArgumentPart = (typeof ARGUMENT_PARTS)[number];

/** The tool's schema for one part, or undefined when the tool has none (stored null or `{}`). */
export const partSchema = (tool: ToolRow, part: ArgumentPart): Record<string, unknown> | undefined => {
  const schema =
    part === "pathArgs"
      ? tool.pathArgsJSONSchema
      : part === "queryArgs"
        ? tool.queryArgsJSONSchema
        : tool.reqBodyJSONSchema;
  return schema === null || Object.keys(schema).length === 0 ? undefined : (schema as Record<string, unknown>);
};

/** True when a schema names at least one required property (so its part must be given). */
const hasRequiredFields = (schema: Record<string, unknown>): boolean =>
  Array.isArray(schema.required) && schema.required.length > 0;

/** The parts a call must give: those whose schema requires at least one property. */
export const requiredParts = (tool: ToolRow): ReadonlyArray<ArgumentPart> =>
  ARGUMENT_PARTS.filter((part) => {
    const schema = partSchema(tool, part);
    return schema !== undefined && hasRequiredFields(schema);
  });

/** What calling a tool does upstream, judged by its HTTP method (hints for clients; never trusted for security). */
export interface MethodTraits {
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
}

/** GET, HEAD and OPTIONS only read; DELETE destroys; PUT and DELETE may be repeated with the same effect. */
export const methodTraits = (method: ToolRow["method"]): MethodTraits => {
  const readOnly = method === "GET" || method === "HEAD" || method === "OPTIONS";
  return {
    readOnly,
    destructive: method === "DELETE",
    idempotent: readOnly || method === "PUT" || method === "DELETE",
  };
};
