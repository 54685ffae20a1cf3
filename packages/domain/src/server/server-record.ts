import { toPromptRecord } from "../prompt/prompt-record.js";
import { toProviderRecord } from "../provider/provider-record.js";
import { toResourceRecord } from "../resource/resource-record.js";
import type { ServerGraph, ToolRow } from "../storage/rows.js";
import { toToolRecord } from "../tool/tool-record.js";
import type { ServerRecord, ServerToolRecord } from "./server-schema.js";
import { isDefaultToolSettings, toolSettingsOf } from "./tool-settings-rows.js";
import type { ServerToolSettings } from "./tool-settings-schema.js";

const byId = <T extends { readonly id: string }>(rows: ReadonlyArray<T>): Map<string, T> =>
  new Map(rows.map((row) => [row.id, row]));

const pick = <T>(ids: ReadonlyArray<string>, rows: Map<string, T>): Array<T> =>
  ids.flatMap((id) => {
    const row = rows.get(id);
    return row === undefined ? [] : [row];
  });

/** `rows` in the order of `ids` (ids without a row are left out). */
export const inIdOrder = <T extends { readonly id: string }>(ids: ReadonlyArray<string>, rows: ReadonlyArray<T>) =>
  pick(ids, byId(rows));

/**
 * A chosen tool as the server shows it: the provider's tool with its settings in this server; `always` false
 * leaves default settings out (a server answer, where most tools have none).
 */
export const toServerToolRecord = (tool: ToolRow, settings: ServerToolSettings, always = true): ServerToolRecord =>
  always || !isDefaultToolSettings(settings) ? { ...toToolRecord(tool), serverSettings: settings } : toToolRecord(tool);

/** The wire form of a server: its providers carry only the chosen tools; lists keep the server's order. */
export const toServerRecord = (graph: ServerGraph): ServerRecord => {
  const providers = byId(graph.providers);
  const tools = byId(graph.tools);
  const { server } = graph;
  return {
    id: server.id,
    createdAt: server.createdAt.toISOString(),
    updatedAt: server.updatedAt.toISOString(),
    name: server.name,
    description: server.description,
    requestHeadersProxyEnabled: server.requestHeadersProxyEnabled,
    dynamicToolDiscoveryEnabled: server.dynamicToolDiscoveryEnabled,
    maxResultTokens: server.maxResultTokens,
    version: server.version,
    gitProvider: graph.gitProvider ?? "",
    gitRepoFullName: server.gitRepoFullName ?? "",
    approvalPolicy: server.approvalPolicy ?? "NONE",
    providers: server.providers.flatMap((link) => {
      const provider = providers.get(link.providerId);
      return provider === undefined
        ? []
        : [
            {
              ...toProviderRecord(provider, []),
              tools: pick(link.toolIds, tools).map((tool) =>
                toServerToolRecord(tool, toolSettingsOf(server, tool.id), false),
              ),
            },
          ];
    }),
    resources: pick(server.resourceIds, byId(graph.resources)).map(toResourceRecord),
    prompts: pick(server.promptIds, byId(graph.prompts)).map(toPromptRecord),
  };
};
