import { listTtlMsOf } from "./list-ttl.js";
import {
  approvalNeeded,
  type McpServerView,
  offeredTool,
  referencedVariables,
  refusedVariables,
  toolSettingsOf,
} from "@mcpsm/domain/mcp";
import type { FixedArgs, ServerToolSettings, ToolHeader } from "@mcpsm/domain/schemas";
import type { PromptRow, ProviderRow, ResourceRow, ToolRow } from "@mcpsm/domain/storage";
import type { ToolIndex } from "@mcpsm/tool-search";
import type { Icon, Implementation, Prompt, Resource, Tool } from "@modelcontextprotocol/server";
import { buildToolIndex } from "./tool-index.js";
import { promptEntry, providerIcons, resourceEntry, toolEntry } from "./wire/list-entries.js";

// A server as the MCP endpoint serves it: everything derived from the stored records once per revision
// (tool definitions, lookup maps, list results), so a request only has to check that the revision is
// still current.

export interface CompiledTool {
  /** The stored tool, named and described as this server offers it (docs/api-rules.md §20). */
  readonly row: ToolRow;
  readonly provider: ProviderRow;
  readonly definition: Tool;
  /** The argument values the server pins: merged over every call. */
  readonly fixedArgs: FixedArgs;
  /** True when a call waits for a person's approval (the server's policy or the tool's setting). */
  readonly approval: boolean;
  /**
   * The variables the tool's headers name when the provider may read them all (what a call reads before
   * it is charged, `prepareDirectCall`); empty when it names none or one it may not read (the call reports it).
   */
  readonly readsVariables: ReadonlyArray<string>;
}

const NO_NAMES: ReadonlyArray<string> = [];

/** The names a call of this tool reads up front (see `CompiledTool.readsVariables`). */
const readsVariablesOf = (row: ToolRow, provider: ProviderRow): ReadonlyArray<string> => {
  const names = referencedVariables(row.headers);
  return names.length === 0 || refusedVariables(provider.secretPrefix, names).length > 0 ? NO_NAMES : names;
};

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
  /** The most o200k_base tokens one tool result holds (docs/api-rules.md §19). */
  readonly maxResultTokens: number;
  /** The `ttlMs` of its list results (docs/api-rules.md §22, list-ttl.ts). */
  readonly listTtlMs: number;
  readonly toolList: ReadonlyArray<Tool>;
  readonly tools: ReadonlyMap<string, CompiledTool>;
  /** Dynamic tool discovery (docs/api-rules.md §14): tools/list shows searchTools, getToolDefinition and useTool. */
  readonly discovery: boolean;
  /** The search index over `tools`: built on first use, then shared by every server of the same `toolSet`. */
  readonly toolIndex: () => ToolIndex;
  /** Where `tools`, `toolList` and `toolIndex` come from: shared by every server that serves the same tools alike. */
  readonly toolSet: ToolSet;
  readonly promptList: ReadonlyArray<Prompt>;
  readonly prompts: ReadonlyMap<string, PromptRow>;
  readonly resourceList: ReadonlyArray<Resource>;
  readonly resources: ReadonlyMap<string, CompiledResource>;
  /** `serverInfo` as `server/discover` / `initialize` announce it. */
  readonly serverInfo: Implementation;
}

/** A server's tools as requests look them up: by name, in list order, and by search. */
export interface ToolSet {
  readonly tools: ReadonlyMap<string, CompiledTool>;
  readonly toolList: ReadonlyArray<Tool>;
  /** Built on first use, then kept with the set. */
  readonly toolIndex: () => ToolIndex;
}

export interface CompiledResource {
  readonly row: ResourceRow;
  readonly provider: ProviderRow | undefined;
  /**
   * Candidates for the provider's credential headers (its served tools' headers that reference variables
   * it may read, in server order), sent when the resource's URI is on the provider's base URL.
   */
  readonly credentialHeaders: ReadonlyArray<ToolHeader>;
}

/** The headers of a provider's tools that reference only variables it may read: its credentials. */
const credentialHeadersOf = (tools: Iterable<CompiledTool>): ReadonlyMap<string, ReadonlyArray<ToolHeader>> => {
  const byProvider = new Map<string, Array<ToolHeader>>();
  for (const { row, provider } of tools)
    for (const header of row.headers) {
      const names = referencedVariables([header]);
      if (names.length === 0 || refusedVariables(provider.secretPrefix, names).length > 0) continue;
      const headers = byProvider.get(provider.id) ?? [];
      byProvider.set(provider.id, headers);
      if (!headers.some((h) => h.key === header.key && h.value === header.value)) headers.push(header);
    }
  return byProvider;
};

/**
 * What the server announces about itself: its name as both name and title, its description, the icons of
 * the providers it draws from, and a website when they all document themselves at one address.
 */
const serverInfoOf = (view: McpServerView): Implementation => {
  const providers = [...view.providersById.values()];
  const icons = new Map<string, Icon>();
  for (const provider of providers) for (const icon of providerIcons(provider)) icons.set(icon.src, icon);
  const sites = new Set(providers.map((p) => p.documentURL).filter((url) => url !== ""));
  return {
    name: view.server.name,
    title: view.server.name,
    version: String(view.server.version),
    ...(view.server.description !== "" ? { description: view.server.description } : {}),
    ...(icons.size > 0 ? { icons: [...icons.values()] } : {}),
    ...(sites.size === 1 ? { websiteUrl: [...sites][0] as string } : {}),
  };
};

/**
 * Where a compile gets what other servers may have compiled alike (intern-table.ts): a tool, the one already
 * compiled for `key`, else `make`'s (`key` names everything a compiled tool is made from, so equal keys make
 * equal tools); a tool set, likewise, keyed by the names and tool keys it holds in order.
 */
export interface Interning {
  readonly tool: (key: string, make: () => CompiledTool) => CompiledTool;
  readonly toolSet: (key: string, make: () => ToolSet) => ToolSet;
}

const compileAlone: Interning = { tool: (_key, make) => make(), toolSet: (_key, make) => make() };

/** The tool set of `tools` (in list order). */
const toolSetOf = (tools: ReadonlyMap<string, CompiledTool>): ToolSet => {
  let index: ToolIndex | undefined;
  return {
    tools,
    toolList: [...tools.values()].map((tool) => tool.definition),
    toolIndex: () => {
      index ??= buildToolIndex(tools.values());
      return index;
    },
  };
};

/**
 * What a compiled tool is made from: the tool's version (its id and last change), its provider's version
 * (name, icon, secretPrefix; bumped by every change to its tools too), and what the server changes about it
 * (alias, description, pinned arguments, whether calls wait for approval).
 */
const toolKey = (stored: ToolRow, provider: ProviderRow, settings: ServerToolSettings, approval: boolean): string =>
  `${stored.id}@${stored.updatedAt.getTime()}|${provider.id}@${provider.version}|${approval ? 1 : 0}|${
    settings.alias
  }|${settings.description.length}:${settings.description}|${
    Object.keys(settings.fixedArgs).length === 0 ? "" : JSON.stringify(settings.fixedArgs)
  }`;

/**
 * Compiles a server view. Names that repeat (possible for prompts of different providers) keep the first.
 * Tools and the tool set come from `intern` (shared with other servers serving the same tools alike); by
 * default each is its own.
 */
export const compileServer = (view: McpServerView, intern: Interning = compileAlone): CompiledServer => {
  // What the tool set is made of, in order: each served name with what its tool is made from.
  const chosen: Array<{ readonly name: string; readonly key: string; readonly make: () => CompiledTool }> = [];
  const names = new Set<string>();
  for (const stored of view.tools) {
    const provider = view.providersById.get(stored.providerId);
    const settings = toolSettingsOf(view.server, stored.id);
    const name = settings.alias === "" ? stored.name : settings.alias;
    if (provider === undefined || names.has(name)) continue;
    names.add(name);
    const approval = approvalNeeded(view.server.approvalPolicy ?? "NONE", settings.approval, stored.method);
    chosen.push({
      name,
      key: toolKey(stored, provider, settings, approval),
      make: () => {
        const offered = offeredTool(stored, settings);
        return {
          row:
            offered.name === stored.name && offered.description === stored.description
              ? stored
              : { ...stored, name: offered.name, description: offered.description },
          provider,
          definition: toolEntry(offered, provider),
          fixedArgs: settings.fixedArgs,
          approval,
          readsVariables: readsVariablesOf(stored, provider),
        };
      },
    });
  }
  const toolSet = intern.toolSet(
    chosen.map(({ name, key }) => `${name.length}:${name}\u0000${key}`).join("\u0001"),
    () => {
      const tools = new Map<string, CompiledTool>();
      for (const { name, key, make } of chosen) tools.set(name, intern.tool(key, make));
      return toolSetOf(tools);
    },
  );
  const { tools } = toolSet;
  const credentials = credentialHeadersOf(tools.values());
  const prompts = new Map<string, PromptRow>();
  for (const row of view.prompts) if (!prompts.has(row.name)) prompts.set(row.name, row);
  const resources = new Map<string, CompiledResource>();
  for (const row of view.resources)
    if (!resources.has(row.uri))
      resources.set(row.uri, {
        row,
        provider: view.providersById.get(row.providerId),
        credentialHeaders: credentials.get(row.providerId) ?? [],
      });
  return {
    id: view.server.id,
    tenant: view.server.tenant,
    revision: view.revision,
    dependencyProviderIds: view.dependencyProviderIds,
    name: view.server.name,
    version: String(view.server.version),
    instructions: view.server.description,
    forwardRequestHeaders: view.server.requestHeadersProxyEnabled,
    maxResultTokens: view.server.maxResultTokens,
    listTtlMs: listTtlMsOf(view, Date.now()),
    toolList: toolSet.toolList,
    tools,
    discovery: view.server.dynamicToolDiscoveryEnabled,
    toolIndex: toolSet.toolIndex,
    toolSet,
    promptList: [...prompts.values()].map(promptEntry),
    prompts,
    resourceList: [...resources.values()].map((resource) => resourceEntry(resource.row)),
    resources,
    serverInfo: serverInfoOf(view),
  };
};
