import { ARGUMENT_PARTS, partSchema } from "@mcpsm/domain/mcp";
import { type SearchableTool, ToolIndex } from "@mcpsm/tool-search";
import type { CompiledTool } from "./compiled-server.js";

// What tool search sees of a compiled tool: its MCP name, title and description, the upstream method and
// path, the names and descriptions of its arguments (the properties of its three argument schemas, two
// levels deep, at most MAX_ARGUMENTS of them), and the required ones, which results show.

const MAX_ARGUMENTS = 200;
const MAX_DEPTH = 2;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const argumentsOf = (tool: CompiledTool): SearchableTool["arguments"] => {
  const out: Array<{ name: string; description?: string }> = [];
  // A shared schema sits in the part's own `$defs` behind a local `$ref` (`#/$defs/Pet`): followed there
  // (the import writes def names that need no pointer escaping).
  const resolved = (root: Record<string, unknown>, node: unknown): unknown => {
    if (!isRecord(node) || typeof node.$ref !== "string" || !node.$ref.startsWith("#/$defs/")) return node;
    const target = isRecord(root.$defs) ? root.$defs[node.$ref.slice("#/$defs/".length)] : undefined;
    return isRecord(target) ? { ...node, ...target } : node;
  };
  const visit = (root: Record<string, unknown>, schema: Record<string, unknown>, depth: number) => {
    if (!isRecord(schema.properties)) return;
    for (const [name, raw] of Object.entries(schema.properties)) {
      if (out.length >= MAX_ARGUMENTS) return;
      const property = resolved(root, raw);
      const description = isRecord(property) && typeof property.description === "string" ? property.description : "";
      out.push(description !== "" ? { name, description } : { name });
      if (depth < MAX_DEPTH && isRecord(property)) visit(root, property, depth + 1);
    }
  };
  for (const part of ARGUMENT_PARTS) {
    const schema = partSchema(tool.row, part);
    const pinned = Object.keys(tool.fixedArgs[part] ?? {});
    // What the server pins (docs/api-rules.md §20) is not the caller's to give: not searched, not shown.
    const open =
      schema !== undefined && pinned.length > 0 && isRecord(schema.properties)
        ? {
            ...schema,
            properties: Object.fromEntries(
              Object.entries(schema.properties).filter(([name]) => !pinned.includes(name)),
            ),
          }
        : schema;
    if (open !== undefined) visit(open, open, 1);
  }
  return out;
};

/** The arguments a call must give, `part.name` (`pathArgs.owner`), as the part schemas require them. */
const requiredOf = (tool: CompiledTool): Array<string> => {
  const out: Array<string> = [];
  for (const part of ARGUMENT_PARTS) {
    const required = partSchema(tool.row, part)?.required;
    const pinned = tool.fixedArgs[part] ?? {};
    if (Array.isArray(required))
      for (const name of required)
        if (typeof name === "string" && !Object.hasOwn(pinned, name)) out.push(`${part}.${name}`);
  }
  return out;
};

// A compiled tool is shared by every server serving it alike (intern-table.ts): what search sees of it
// is made once for all of them.
const searchable = new WeakMap<CompiledTool, SearchableTool>();

const searchableOf = (tool: CompiledTool): SearchableTool => {
  let entry = searchable.get(tool);
  if (entry === undefined) {
    entry = {
      name: tool.definition.name,
      title: tool.definition.title,
      description: tool.definition.description,
      method: tool.row.method,
      path: tool.row.path,
      arguments: argumentsOf(tool),
      required: requiredOf(tool),
    };
    searchable.set(tool, entry);
  }
  return entry;
};

/** The search index over a compiled server's tools, in the server's order. */
export const buildToolIndex = (tools: Iterable<CompiledTool>): ToolIndex => new ToolIndex([...tools].map(searchableOf));
