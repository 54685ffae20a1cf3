import {
  type McpServerView,
  type McpToolDefinition,
  mcpToolDefinition,
  type PromptRow,
  type ProviderRow,
  type ResourceRow,
  type ToolRow,
} from "@mcpsm/domain";

// A server as the MCP endpoint serves it: everything derived from the stored records once per revision
// (tool definitions, lookup maps, list results), so a request only has to check that the revision is
// still current.

export interface CompiledTool {
  readonly row: ToolRow;
  readonly provider: ProviderRow;
  readonly definition: McpToolDefinition;
}

export interface CompiledServer {
  readonly id: string;
  /** The owner: OAuth callers must belong to it; tool headers resolve its variables. */
  readonly tenant: string;
  readonly revision: string;
  /** The providers whose versions make up the revision. */
  readonly dependencyProviderIds: ReadonlyArray<string>;
  readonly name: string;
  readonly version: string;
  readonly instructions: string;
  readonly forwardRequestHeaders: boolean;
  readonly toolList: ReadonlyArray<McpToolDefinition>;
  readonly tools: ReadonlyMap<string, CompiledTool>;
  readonly promptList: ReadonlyArray<{
    name: string;
    description?: string;
    arguments: Array<{ name: string; description?: string; required: boolean }>;
  }>;
  readonly prompts: ReadonlyMap<string, PromptRow>;
  readonly resourceList: ReadonlyArray<Record<string, unknown> & { uri: string; name: string }>;
  readonly resources: ReadonlyMap<string, ResourceRow>;
}

/** Compiles a server view. Names that repeat (possible for prompts of different providers) keep the first. */
export const compileServer = (view: McpServerView): CompiledServer => {
  const tools = new Map<string, CompiledTool>();
  for (const row of view.tools) {
    const provider = view.providersById.get(row.providerId);
    if (provider === undefined || tools.has(row.name)) continue;
    tools.set(row.name, { row, provider, definition: mcpToolDefinition(row) });
  }
  const prompts = new Map<string, PromptRow>();
  for (const row of view.prompts) if (!prompts.has(row.name)) prompts.set(row.name, row);
  const resources = new Map<string, ResourceRow>();
  for (const row of view.resources) if (!resources.has(row.uri)) resources.set(row.uri, row);
  return {
    id: view.server.id,
    tenant: view.server.tenant,
    revision: view.revision,
    dependencyProviderIds: view.dependencyProviderIds,
    name: view.server.name,
    version: String(view.server.version),
    instructions: view.server.description,
    forwardRequestHeaders: view.server.requestHeadersProxyEnabled,
    toolList: [...tools.values()].map((tool) => tool.definition),
    tools,
    promptList: [...prompts.values()].map((row) => ({
      name: row.name,
      ...(row.description !== "" ? { description: row.description } : {}),
      arguments: row.arguments.map((arg) => ({
        name: arg.name,
        ...(arg.description ? { description: arg.description } : {}),
        required: arg.required === true,
      })),
    })),
    prompts,
    resourceList: [...resources.values()].map((row) => ({
      uri: row.uri,
      name: row.name,
      ...(row.description !== "" ? { description: row.description } : {}),
      ...(row.mimeType !== "" ? { mimeType: row.mimeType } : {}),
      ...(row.size > 0 ? { size: row.size } : {}),
      ...(Object.keys(row.annotations).length > 0 ? { annotations: row.annotations } : {}),
    })),
    resources,
  };
};
