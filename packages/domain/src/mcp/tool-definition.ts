import type { ToolRow } from "../storage/rows.js";

// How a stored tool appears in an MCP `tools/list`: its three argument schemas become the properties
// `pathArgs`, `queryArgs` and `bodyArgs` of one input object, and its HTTP method becomes hints.

/** The property of the MCP arguments object that carries each part of the upstream request. */
export const ARGUMENT_PARTS = ["pathArgs", "queryArgs", "bodyArgs"] as const;
export type ArgumentPart = (typeof ARGUMENT_PARTS)[number];

/** MCP tool annotations (hints for clients; never trusted for security). */
export interface McpToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** One entry of an MCP `tools/list` result. */
export interface McpToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: {
    readonly type: "object";
    readonly properties: Record<string, Record<string, unknown>>;
    readonly required?: ReadonlyArray<string>;
    readonly additionalProperties: false;
  };
  readonly annotations: McpToolAnnotations;
}

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

/** GET and HEAD only read; DELETE destroys; PUT and DELETE may be repeated with the same effect. */
export const annotationsOf = (tool: ToolRow): McpToolAnnotations => {
  const readOnly = tool.method === "GET" || tool.method === "HEAD" || tool.method === "OPTIONS";
  return {
    ...(tool.title !== "" ? { title: tool.title } : {}),
    readOnlyHint: readOnly,
    destructiveHint: tool.method === "DELETE",
    idempotentHint: readOnly || tool.method === "PUT" || tool.method === "DELETE",
    openWorldHint: true,
  };
};

/** The MCP definition of a tool. */
export const mcpToolDefinition = (tool: ToolRow): McpToolDefinition => {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: Array<string> = [];
  for (const part of ARGUMENT_PARTS) {
    const schema = partSchema(tool, part);
    if (schema === undefined) continue;
    properties[part] = schema;
    if (hasRequiredFields(schema)) required.push(part);
  }
  return {
    name: tool.name,
    ...(tool.title !== "" ? { title: tool.title } : {}),
    ...(tool.description !== "" ? { description: tool.description } : {}),
    inputSchema: {
      type: "object",
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    annotations: annotationsOf(tool),
  };
};
