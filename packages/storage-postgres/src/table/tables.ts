import {
  PromptRow,
  ProviderRow,
  ResourceRow,
  ServerRow,
  ServerTokenRow,
  ToolRow,
  VariableRow,
} from "@mcpsm/domain/storage";
import type { MetadataStorage } from "@mikro-orm/core";
import {
  PromptEntity,
  ProviderEntity,
  ResourceEntity,
  ServerEntity,
  ServerTokenEntity,
  ToolEntity,
  VariableEntity,
} from "../schema/entities.js";
import { describeGraphs } from "./graphs.js";
import { describeTable } from "./table.js";

/** The tables of the stored records, each its entity's metadata paired with the domain's row schema. */
export const describeRecordTables = (metadata: MetadataStorage) => ({
  providers: describeTable(metadata.get(ProviderEntity), ProviderRow),
  tools: describeTable(metadata.get(ToolEntity), ToolRow),
  prompts: describeTable(metadata.get(PromptEntity), PromptRow),
  resources: describeTable(metadata.get(ResourceEntity), ResourceRow),
  variables: describeTable(metadata.get(VariableEntity), VariableRow),
  // A server's links live in the server_* link tables (see graphs.ts and tx/servers.ts).
  servers: describeTable(metadata.get(ServerEntity), ServerRow, ["providers", "resourceIds", "promptIds"]),
  serverTokens: describeTable(metadata.get(ServerTokenEntity), ServerTokenRow),
});

/**
 * Everything the adapter's statements are built from, derived once from the discovered mapping: the record
 * tables and the nested reads over them.
 */
export const describeTables = (metadata: MetadataStorage) => {
  const tables = describeRecordTables(metadata);
  return { ...tables, graphs: describeGraphs(tables) };
};

export type Tables = ReturnType<typeof describeTables>;
