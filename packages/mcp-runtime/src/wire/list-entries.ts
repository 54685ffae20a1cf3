import {
  ARGUMENT_PARTS,
  lenientOutputSchema,
  methodTraits,
  nestedSchema,
  partSchema,
  requiredParts,
} from "@mcpsm/domain/mcp";
import type { PromptRow, ProviderRow, ResourceRow, ToolRow } from "@mcpsm/domain/storage";
import type { Icon, Prompt, Resource, Tool } from "@modelcontextprotocol/server";
import { filteredOutputSchema, filterOf } from "../tool-output/filtered-schema.js";

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

/** The `type` of a schema, following a root `$ref` into its own `$defs` / `definitions` (a few hops). */
const rootType = (schema: Record<string, unknown>): unknown => {
  let node: unknown = schema;
  for (let hops = 0; hops < 8; hops++) {
    if (typeof node !== "object" || node === null) return undefined;
    const { type, $ref } = node as { type?: unknown; $ref?: unknown };
    if (type !== undefined || typeof $ref !== "string") return type;
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec($ref);
    const defs = match === null ? undefined : schema[match[1] as string];
    node =
      typeof defs === "object" && defs !== null
        ? (defs as Record<string, unknown>)[
            decodeURIComponent(match?.[2] ?? "")
              .replaceAll("~1", "/")
              .replaceAll("~0", "~")
          ]
        : undefined;
  }
  return undefined;
};

/** `$defs` (and draft-07 `definitions`) moved from `inner` to the root that wraps it, so local `$ref`s resolve. */
const wrapped = (inner: Record<string, unknown>): Tool["outputSchema"] => {
  const { $defs, definitions, ...rest } = inner;
  return {
    type: "object",
    properties: { result: rest as PropertySchema },
    required: ["result"],
    ...($defs === undefined ? {} : { $defs }),
    ...(definitions === undefined ? {} : { definitions }),
  } as Tool["outputSchema"];
};

/**
 * The tool's `outputSchema`: the schema of the upstream's success answer in the shape `structuredContent`
 * takes — an object schema as is, any other type wrapped as `{result: …}`; by default (outputSchemaMode
 * LENIENT) in the lenient form every real answer satisfies (docs/api-rules.md §15a). None when the answer's
 * schema is unknown or does not say its type (it could be either shape).
 */
export const outputSchemaOf = (tool: ToolRow): Tool["outputSchema"] => {
  // Rows are not changed in place (a revision is a new row): each one's schema is made once, listed and
  // checked against on every call.
  if (declared.has(tool)) return declared.get(tool);
  const schema = declaredOutputSchema(tool);
  declared.set(tool, schema);
  return schema;
};

const declared = new WeakMap<ToolRow, Tool["outputSchema"]>();

const declaredOutputSchema = (tool: ToolRow): Tool["outputSchema"] => {
  // With a response filter, the schema of the filtered result (docs/api-rules.md §19).
  if (tool.responseFilter !== null) {
    const filter = filterOf(tool);
    return filteredOutputSchema(tool, filter?.ok ? filter.filter : undefined) as Tool["outputSchema"];
  }
  const schema = tool.respBodyJSONSchema;
  if (schema === null) return undefined;
  const exact = tool.outputSchemaMode === "EXACT";
  const type = rootType(schema);
  // The root says `type: "object"` itself (MCP requires it), also when a root `$ref` is what says it.
  if (type === "object") return { type, ...(exact ? schema : lenientOutputSchema(schema)) } as Tool["outputSchema"];
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : [];
  if (types.length === 0 || types.includes("object")) return undefined;
  return wrapped(exact ? schema : lenientOutputSchema(schema, true));
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
