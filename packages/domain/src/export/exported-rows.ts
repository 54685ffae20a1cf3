import { canonical } from "../validation/canonical-json.js";
import type { PromptRow, ResourceRow, ToolRow } from "../storage/rows.js";
import { DEFAULT_REQ_CONTENT_TYPE } from "../tool/tool-body-fields.js";
import { toExportedTool } from "./export-document.js";
import type { ExportedPrompt, ExportedResource, ExportedTool } from "./export-schema.js";

// The stored rows of an export document's members, and how a tenant's tool differs from the document's.

/** The fields in which a tenant's tool differs from the document's tool it was matched with. */
export const differingFields = (stored: ToolRow, wanted: ExportedTool): Array<string> => {
  const have = toExportedTool(stored) as Record<string, unknown>;
  const want = toExportedTool(
    toolRowOf(wanted, { id: "", providerId: "", createdAt: new Date(0), updatedAt: new Date(0) }),
  ) as Record<string, unknown>;
  return Object.keys(want).filter((field) => field !== "method" && canonical(have[field]) !== canonical(want[field]));
};

/** The ids and times of a new row. */
export type Base = Pick<ToolRow, "id" | "providerId" | "createdAt" | "updatedAt">;

const schemaOrNull = (schema: Readonly<Record<string, unknown>> | undefined) =>
  schema === undefined || Object.keys(schema).length === 0 ? null : schema;

/** The stored row of a document's tool. */
export const toolRowOf = (tool: ExportedTool, base: Base): ToolRow => ({
  ...base,
  method: tool.method,
  path: tool.path,
  name: tool.name,
  title: tool.title ?? "",
  description: tool.description ?? "",
  pathArgsJSONSchema: schemaOrNull(tool.pathArgsJSONSchema),
  queryArgsJSONSchema: schemaOrNull(tool.queryArgsJSONSchema),
  reqBodyJSONSchema: schemaOrNull(tool.reqBodyJSONSchema),
  reqContentType: tool.reqContentType ?? DEFAULT_REQ_CONTENT_TYPE,
  reqBodyEncoding: tool.reqBodyEncoding ?? {},
  respBodyJSONSchema: schemaOrNull(tool.respBodyJSONSchema ?? undefined),
  outputSchemaMode: tool.outputSchemaMode ?? "LENIENT",
  responseFilter: tool.responseFilter ?? null,
  headers: tool.headers ?? [],
  oauth2Scopes: tool.oauth2Scopes ?? [],
  imported: false,
  operationPath: "",
  longRunning: false,
});

/** The stored row of a document's prompt. */
export const promptRowOf = (prompt: ExportedPrompt, base: Base): PromptRow => ({
  id: base.id,
  providerId: base.providerId,
  createdAt: base.createdAt,
  updatedAt: base.updatedAt,
  name: prompt.name,
  description: prompt.description ?? "",
  arguments: prompt.arguments ?? [],
  messages: prompt.messages ?? [],
});

/** The stored row of a document's resource. */
export const resourceRowOf = (resource: ExportedResource, base: Base): ResourceRow => ({
  id: base.id,
  providerId: base.providerId,
  createdAt: base.createdAt,
  updatedAt: base.updatedAt,
  name: resource.name,
  description: resource.description ?? "",
  uri: resource.uri,
  mimeType: resource.mimeType ?? "",
  size: resource.size ?? 0,
  annotations: resource.annotations ?? {},
});
