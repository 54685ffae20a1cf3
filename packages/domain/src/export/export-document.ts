import { Effect } from "effect";
import { referencedVariables } from "../mcp/header-templates.js";
import { isDefaultToolSettings, toolSettingsOf } from "../server/tool-settings-rows.js";
import type { PromptRow, ProviderRow, ResourceRow, ServerGraph, ToolRow, VariableRow } from "../storage/rows.js";
import type { ReadTx } from "../storage/storage-port.js";
import {
  type ExportedPrompt,
  type ExportedProvider,
  type ExportedResource,
  type ExportedTool,
  SERVER_EXPORT_FORMAT,
  type ServerExportDocument,
} from "./export-schema.js";

// Builds the §16 export document from stored rows. Pure but for `exportDocumentOf`, which reads what the
// graph lacks (variables, providers of prompts or resources the server holds without their tools) in the
// caller's transaction, so a git sync can export exactly the state its transaction sees.

/** A tool's exported fields, scalars always present ({} for "no schema"). */
export const toExportedTool = (row: ToolRow): ExportedTool => ({
  method: row.method,
  path: row.path,
  name: row.name,
  title: row.title,
  description: row.description,
  pathArgsJSONSchema: row.pathArgsJSONSchema ?? {},
  queryArgsJSONSchema: row.queryArgsJSONSchema ?? {},
  reqBodyJSONSchema: row.reqBodyJSONSchema ?? {},
  reqContentType: row.reqContentType,
  reqBodyEncoding: row.reqBodyEncoding,
  respBodyJSONSchema: row.respBodyJSONSchema,
  outputSchemaMode: row.outputSchemaMode,
  responseFilter: row.responseFilter,
  headers: row.headers,
  oauth2Scopes: row.oauth2Scopes,
});

/** A prompt's exported fields. */
export const toExportedPrompt = (row: PromptRow): ExportedPrompt => ({
  name: row.name,
  description: row.description,
  arguments: row.arguments,
  messages: row.messages,
});

/** A resource's exported fields. */
export const toExportedResource = (row: ResourceRow): ExportedResource => ({
  name: row.name,
  description: row.description,
  uri: row.uri,
  mimeType: row.mimeType,
  size: row.size,
  annotations: row.annotations,
});

/** A provider's exported fields (never id, secretPrefix, timestamps or the client secret) and its members. */
const toExportedProvider = (
  row: ProviderRow,
  tools: ReadonlyArray<ExportedTool>,
  prompts: ReadonlyArray<PromptRow>,
  resources: ReadonlyArray<ResourceRow>,
): ExportedProvider => ({
  apiType: row.apiType,
  visibilityType: row.visibilityType,
  baseURL: row.baseURL,
  documentURL: row.documentURL,
  iconURL: row.iconURL,
  name: row.name,
  description: row.description,
  version: row.version,
  ...(row.oauth2Config === null
    ? {}
    : {
        oauth2Config: {
          clientID: row.oauth2Config.clientID,
          authURL: row.oauth2Config.authURL,
          tokenURL: row.oauth2Config.tokenURL,
        },
      }),
  tools,
  prompts: prompts.map(toExportedPrompt),
  resources: resources.map(toExportedResource),
});

/** The variable names the chosen tools of a graph reference, in first-use order (only well-formed names). */
export const variablesReferencedBy = (tools: ReadonlyArray<ToolRow>): ReadonlyArray<string> => [
  ...new Set(
    tools.flatMap((tool) => referencedVariables(tool.headers)).filter((n) => /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(n)),
  ),
];

/**
 * The export document of a server graph. `extraProviders` are the providers of the server's prompts and
 * resources that are not among its providers (listed after them, with no tools); `variables` the owner's
 * variables the chosen tools reference (listed in first-use order; values are never read).
 */
export const toExportDocument = (
  graph: ServerGraph,
  variables: ReadonlyArray<Pick<VariableRow, "name" | "type"> & { readonly perCaller?: boolean }>,
  extraProviders: ReadonlyArray<ProviderRow> = [],
): ServerExportDocument => {
  const { server } = graph;
  const toolsById = new Map(graph.tools.map((t) => [t.id, t]));
  const promptsById = new Map(graph.prompts.map((p) => [p.id, p]));
  const resourcesById = new Map(graph.resources.map((r) => [r.id, r]));
  const providersById = new Map([...graph.providers, ...extraProviders].map((p) => [p.id, p]));
  const prompts = server.promptIds.flatMap((id) => promptsById.get(id) ?? []);
  const resources = server.resourceIds.flatMap((id) => resourcesById.get(id) ?? []);
  const order = [
    ...server.providers.map((link) => link.providerId),
    ...prompts.map((p) => p.providerId),
    ...resources.map((r) => r.providerId),
  ];
  const toolIdsOf = new Map(server.providers.map((link) => [link.providerId, link.toolIds]));
  const providers = [...new Set(order)].flatMap((id) => {
    const row = providersById.get(id);
    if (row === undefined) return [];
    const tools = (toolIdsOf.get(id) ?? []).flatMap((toolId) => {
      const tool = toolsById.get(toolId);
      if (tool === undefined) return [];
      // A chosen tool's settings in the server (docs/api-rules.md §20), only when it has any.
      const settings = toolSettingsOf(server, toolId);
      return [{ ...toExportedTool(tool), ...(isDefaultToolSettings(settings) ? {} : { serverSettings: settings }) }];
    });
    return [
      toExportedProvider(
        row,
        tools,
        prompts.filter((p) => p.providerId === id),
        resources.filter((r) => r.providerId === id),
      ),
    ];
  });
  const names = variablesReferencedBy(graph.tools);
  const byName = new Map(variables.map((v) => [v.name, v]));
  return {
    format: SERVER_EXPORT_FORMAT,
    server: {
      name: server.name,
      description: server.description,
      requestHeadersProxyEnabled: server.requestHeadersProxyEnabled,
      dynamicToolDiscoveryEnabled: server.dynamicToolDiscoveryEnabled,
      maxResultTokens: server.maxResultTokens,

      ...((server.approvalPolicy ?? "NONE") === "NONE" ? {} : { approvalPolicy: server.approvalPolicy }),
    },
    providers,
    variables: names.flatMap((name) => {
      const variable = byName.get(name);
      if (variable === undefined) return [];
      return [{ name, type: variable.type, ...(variable.perCaller === true ? { perCaller: true } : {}) }];
    }),
  };
};

/**
 * The export document of a stored server graph, reading inside `tx` the owner's referenced variables (name
 * and type only) and the providers of prompts and resources the graph does not carry. For use inside a
 * storage transaction (an export, a git sync after a write).
 */
export const exportDocumentOf = (tx: ReadTx, graph: ServerGraph) =>
  Effect.gen(function* () {
    const names = variablesReferencedBy(graph.tools);
    const variables = names.length === 0 ? [] : yield* tx.findVariablesByName(graph.server.tenant, names);
    const known = new Set(graph.providers.map((p) => p.id));
    const missing = [
      ...new Set([...graph.prompts, ...graph.resources].map((m) => m.providerId).filter((id) => !known.has(id))),
    ];
    const extra: Array<ProviderRow> = [];
    for (const id of missing) {
      const row = yield* tx.findProvider(id);
      if (row !== undefined) extra.push(row);
    }
    return toExportDocument(graph, variables, extra);
  });
