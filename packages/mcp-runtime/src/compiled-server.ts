import type { McpServerView } from "@mcpsm/domain/mcp";
import type { PromptRow, ProviderRow, ResourceRow, ToolRow } from "@mcpsm/domain/storage";
import type { ToolIndex } from "@mcpsm/tool-search";
import type { Prompt, Resource, Tool } from "@modelcontextprotocol/server";
import { buildToolIndex } from "./tool-index.js";
import { promptEntry, resourceEntry, toolEntry } from "./wire/list-entries.js";

// A server as the MCP endpoint serves it: everything derived from the stored records once per revision
// (tool definitions, lookup maps, list results), so a request only has to check that the revision is
// still current.

export interface CompiledTool {
  readonly row: ToolRow;
  readonly provider: ProviderRow;
  readonly definition: Tool;
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
  readonly toolList: ReadonlyArray<Tool>;
  readonly tools: ReadonlyMap<string, CompiledTool>;
  /** Dynamic tool discovery (docs/api-rules.md §14): tools/list shows searchTools, getToolDefinition and useTool. */
  readonly discovery: boolean;
  /** The search index over `tools`: built on first use, then shared by every request of this revision. */
  readonly toolIndex: () => ToolIndex;
  readonly promptList: ReadonlyArray<Prompt>;
  readonly prompts: ReadonlyMap<string, PromptRow>;
  readonly resourceList: ReadonlyArray<Resource>;
  readonly resources: ReadonlyMap<string, ResourceRow>;
}

/** Compiles a server view. Names that repeat (possible for prompts of different providers) keep the first. */
export const compileServer = (view: McpServerView): CompiledServer => {
  const tools = new Map<string, CompiledTool>();
  for (const row of view.tools) {
    const provider = view.providersById.get(row.providerId);
    if (provider === undefined || tools.has(row.name)) continue;
    tools.set(row.name, { row, provider, definition: toolEntry(row) });
  }
  const prompts = new Map<string, PromptRow>();
  for (const row of view.prompts) if (!prompts.has(row.name)) prompts.set(row.name, row);
  const resources = new Map<string, ResourceRow>();
  for (const row of view.resources) if (!resources.has(row.uri)) resources.set(row.uri, row);
  let index: ToolIndex | undefined;
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
    discovery: view.server.dynamicToolDiscoveryEnabled,
    toolIndex: () => {
      index ??= buildToolIndex(tools.values());
      return index;
    },
    promptList: [...prompts.values()].map(promptEntry),
    prompts,
    resourceList: [...resources.values()].map(resourceEntry),
    resources,
  };
};
