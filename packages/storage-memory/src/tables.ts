import type {
  PromptRow,
  ProviderRow,
  ResourceRow,
  ServerRow,
  ServerTokenRow,
  ToolRow,
  VariableRow,
} from "@mcpsm/domain/storage";

/**
 * The whole store: one map per record kind, keyed by id. Server links live inside the ServerRow.
 * Stored rows are private clones that are never changed in place (a write replaces the map entry), so
 * copying the maps is enough to snapshot the store.
 */
export interface Tables {
  readonly providers: Map<string, ProviderRow>;
  readonly tools: Map<string, ToolRow>;
  readonly prompts: Map<string, PromptRow>;
  readonly resources: Map<string, ResourceRow>;
  readonly variables: Map<string, VariableRow>;
  readonly servers: Map<string, ServerRow>;
  readonly serverTokens: Map<string, ServerTokenRow>;
}

/** An empty store. */
export const emptyTables = (): Tables => ({
  providers: new Map(),
  tools: new Map(),
  prompts: new Map(),
  resources: new Map(),
  variables: new Map(),
  servers: new Map(),
  serverTokens: new Map(),
});

/** A snapshot a transaction may write to without touching `tables` (rows are shared, see `Tables`). */
export const copyTables = (tables: Tables): Tables => ({
  providers: new Map(tables.providers),
  tools: new Map(tables.tools),
  prompts: new Map(tables.prompts),
  resources: new Map(tables.resources),
  variables: new Map(tables.variables),
  servers: new Map(tables.servers),
  serverTokens: new Map(tables.serverTokens),
});
