import { ARGUMENT_PARTS, methodTraits, nestedSchema, partSchema, requiredParts } from "@mcpsm/domain/mcp";
import type { PromptRow, ProviderRow, ResourceRow, ToolRow } from "@mcpsm/domain/storage";
import type { Icon, Prompt, Resource, Tool } from "@modelcontextprotocol/server";

/** One property schema of a tool's input object, as the SDK types it (a JSON value). */
type PropertySchema = NonNullable<Tool["inputSchema"]["properties"]>[string];

// How stored records appear in MCP list results, in the SDK's own types. The rules behind them (which
// argument parts exist, what a method implies) are the domain's; only the wire shape is decided here.

/** A provider's icon as MCP lists it (none when the provider has no iconURL). */
export const providerIcons = (provider: ProviderRow): Array<Icon> =>
  provider.iconURL !== "" ? [{ src: provider.iconURL }] : [];

/**
 * What a model reads to choose a tool: its description, else its title, else what it does and where
 * (`GET /items/{id} on Stripe`), so no tool is listed without one.
 */
export const toolDescription = (tool: ToolRow, provider: ProviderRow): string =>
  tool.description !== ""
    ? tool.description
    : tool.title !== ""
      ? tool.title
      : `${tool.method} ${tool.path}${provider.name !== "" ? ` on ${provider.name}` : ""}`;

/**
 * The tool's `outputSchema`: the schema of the upstream's success answer (from an imported description) in
 * the shape `structuredContent` takes — an object schema as is, any other type wrapped as `{result: …}`.
 * None when the answer's schema is unknown or does not say its type (it could be either shape).
 */
export const outputSchemaOf = (tool: ToolRow): Tool["outputSchema"] => {
  const schema = tool.respBodyJSONSchema;
  if (schema === null) return undefined;
  const type = schema.type;
  if (type === "object") return schema as Tool["outputSchema"];
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : [];
  if (types.length === 0 || types.includes("object")) return undefined;
  return {
    type: "object",
    properties: { result: nestedSchema(schema, "/properties/result") as PropertySchema },
    required: ["result"],
  };
};

/**
 * A tool as `tools/list` shows it: one input object with `pathArgs`, `queryArgs` and `bodyArgs`, the
 * description (with its fallback) and the provider's icon.
 */
export const toolEntry = (tool: ToolRow, provider: ProviderRow): Tool => {
  const properties: Record<string, PropertySchema> = {};
  for (const part of ARGUMENT_PARTS) {
    const schema = partSchema(tool, part);
    // Stored schemas were decoded from JSON and checked as JSON Schemas on write: they are JSON values.
    // Shared schemas sit in each part's own `$defs`: their references are rebased to where the part sits.
    if (schema !== undefined) properties[part] = nestedSchema(schema, `/properties/${part}`) as PropertySchema;
  }
  const required = requiredParts(tool);
  const traits = methodTraits(tool.method);
  const outputSchema = outputSchemaOf(tool);
  return {
    name: tool.name,
    ...(tool.title !== "" ? { title: tool.title } : {}),
    description: toolDescription(tool, provider),
    ...(provider.iconURL !== "" ? { icons: providerIcons(provider) } : {}),
    inputSchema: {
      type: "object",
      properties,
      ...(required.length > 0 ? { required: [...required] } : {}),
      additionalProperties: false,
    },
    ...(outputSchema === undefined ? {} : { outputSchema }),
    annotations: {
      ...(tool.title !== "" ? { title: tool.title } : {}),
      readOnlyHint: traits.readOnly,
      destructiveHint: traits.destructive,
      idempotentHint: traits.idempotent,
      openWorldHint: true,
    },
  };
};

/** A prompt as `prompts/list` shows it. */
export const promptEntry = (row: PromptRow): Prompt => ({
  name: row.name,
  ...(row.description !== "" ? { description: row.description } : {}),
  arguments: row.arguments.map((arg) => ({
    name: arg.name,
    ...(arg.description ? { description: arg.description } : {}),
    required: arg.required === true,
  })),
});

const resourceAnnotations = (annotations: ResourceRow["annotations"]): NonNullable<Resource["annotations"]> => ({
  ...(annotations.audience !== undefined ? { audience: [...annotations.audience] } : {}),
  ...(annotations.priority !== undefined ? { priority: annotations.priority } : {}),
  ...(annotations.lastModified !== undefined ? { lastModified: annotations.lastModified } : {}),
});

/** A resource as `resources/list` shows it. */
export const resourceEntry = (row: ResourceRow): Resource => ({
  uri: row.uri,
  name: row.name,
  ...(row.description !== "" ? { description: row.description } : {}),
  ...(row.mimeType !== "" ? { mimeType: row.mimeType } : {}),
  ...(row.size > 0 ? { size: row.size } : {}),
  ...(Object.keys(row.annotations).length > 0 ? { annotations: resourceAnnotations(row.annotations) } : {}),
});
