import { toPromptRecord } from "../prompt/prompt-record.js";
import { toProviderRecord } from "../provider/provider-record.js";
import { toResourceRecord } from "../resource/resource-record.js";
import type { ServerGraph } from "../storage/rows.js";
import type { ServerRecord } from "./server-schema.js";

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
    providers: server.providers.flatMap((link) => {
      const provider = providers.get(link.providerId);
      return provider === undefined ? [] : [toProviderRecord(provider, pick(link.toolIds, tools))];
    }),
    resources: pick(server.resourceIds, byId(graph.resources)).map(toResourceRecord),
    prompts: pick(server.promptIds, byId(graph.prompts)).map(toPromptRecord),
  };
};
