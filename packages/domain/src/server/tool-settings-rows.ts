import type { ServerRow, ToolRow } from "../storage/rows.js";
import {
  DEFAULT_TOOL_SETTINGS,
  type FixedArgs,
  type ServerToolSettings,
  type ServerToolSettingsRow,
} from "./tool-settings-schema.js";

// How a server row holds the settings of its chosen tools (docs/api-rules.md §20): one entry per tool that
// has any, in the order the tools are chosen. Both stores keep exactly this form (`storedToolSettings`).

/** True when the settings are the defaults (such a tool has no entry). */
export const isDefaultToolSettings = (settings: ServerToolSettings): boolean =>
  settings.alias === "" &&
  settings.description === "" &&
  settings.approval === "INHERIT" &&
  Object.keys(settings.fixedArgs).length === 0;

/** Pinned arguments without empty parts (`{pathArgs: {}}` is no pin). */
export const normalFixedArgs = (fixed: FixedArgs): FixedArgs =>
  Object.fromEntries(
    Object.entries(fixed).filter(([, values]) => values !== undefined && Object.keys(values).length > 0),
  );

/** The settings of one chosen tool in a server (the defaults when it has none). */
export const toolSettingsOf = (server: ServerRow, toolId: string): ServerToolSettings => {
  const found = server.toolSettings?.find((entry) => entry.toolId === toolId);
  if (found === undefined) return DEFAULT_TOOL_SETTINGS;
  const { toolId: _, ...settings } = found;
  return settings;
};

/** The MCP name of a chosen tool in a server: its alias, else its own name. */
export const servedToolName = (server: ServerRow, tool: ToolRow): string => {
  const alias = toolSettingsOf(server, tool.id).alias;
  return alias === "" ? tool.name : alias;
};

/**
 * The settings entries a store keeps for a server: those of chosen tools only, not the defaults, in the
 * order the tools are chosen. Settings go with their tool: a tool taken out of the server loses them.
 */
export const storedToolSettings = (server: ServerRow): ReadonlyArray<ServerToolSettingsRow> => {
  const byTool = new Map((server.toolSettings ?? []).map((entry) => [entry.toolId, entry]));
  return server.providers.flatMap((link) =>
    link.toolIds.flatMap((toolId) => {
      const entry = byTool.get(toolId);
      return entry === undefined || isDefaultToolSettings(entry) ? [] : [entry];
    }),
  );
};

/** A server row as both stores answer it: the approval policy and the settings in their stored form. */
export const storedServerRow = (server: ServerRow): ServerRow => ({
  ...server,
  approvalPolicy: server.approvalPolicy ?? "NONE",
  toolSettings: storedToolSettings(server),
});

/** The server's settings entries with those of `toolId` replaced by `settings` (dropped when the defaults). */
export const withToolSettings = (
  server: ServerRow,
  toolId: string,
  settings: ServerToolSettings,
): ReadonlyArray<ServerToolSettingsRow> => [
  ...(server.toolSettings ?? []).filter((entry) => entry.toolId !== toolId),
  ...(isDefaultToolSettings(settings) ? [] : [{ toolId, ...settings }]),
];
