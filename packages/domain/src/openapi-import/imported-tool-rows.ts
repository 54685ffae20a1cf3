import type { ProviderRecord } from "../provider/provider-schema.js";
import type { ToolRow } from "../storage/rows.js";
import { DEFAULT_REQ_CONTENT_TYPE } from "../tool/tool-body-fields.js";
import { canonical } from "../validation/canonical-json.js";
import type { JsonObject } from "../validation/text.js";
import type { ImportReport, ImportResult } from "./import-schema.js";
import { exactKey, matchKey, type ToolDraft } from "./operation-mapping.js";

// The stored tools of an OpenAPI import: a draft's row, what a re-sync matches and compares, and the report.

const schemaOrNull = (schema: JsonObject): JsonObject | null => (Object.keys(schema).length === 0 ? null : schema);

/** The stored tool of a draft under its final name. */
export const toolRow = (
  draft: ToolDraft,
  name: string,
  base: Pick<ToolRow, "id" | "providerId" | "createdAt" | "updatedAt">,
  // A re-sync keeps the tenant's choice; the document does not say it.
  kept: Pick<ToolRow, "outputSchemaMode" | "responseFilter"> = { outputSchemaMode: "LENIENT", responseFilter: null },
): ToolRow => ({
  ...base,
  method: draft.fields.method,
  path: draft.fields.path,
  name,
  title: draft.fields.title ?? "",
  description: draft.fields.description ?? "",
  pathArgsJSONSchema: schemaOrNull(draft.fields.pathArgsJSONSchema ?? {}),
  queryArgsJSONSchema: schemaOrNull(draft.fields.queryArgsJSONSchema ?? {}),
  reqBodyJSONSchema: schemaOrNull(draft.fields.reqBodyJSONSchema ?? {}),
  reqContentType: draft.fields.reqContentType ?? DEFAULT_REQ_CONTENT_TYPE,
  reqBodyEncoding: draft.fields.reqBodyEncoding ?? {},
  respBodyJSONSchema: schemaOrNull(draft.responseSchema ?? {}),
  outputSchemaMode: kept.outputSchemaMode,
  responseFilter: kept.responseFilter,
  headers: draft.fields.headers ?? [],
  oauth2Scopes: draft.fields.oauth2Scopes ?? [],
  imported: true,
  operationPath: draft.operationPath,
  longRunning: draft.longRunning,
});

/**
 * What a re-sync matches each stored imported tool by: its method and its operation's path as written,
 * placeholder names blanked, or (for a later tool of the same template, as mapOperations keys drafts) exact.
 */
export const storedKeys = (tools: ReadonlyArray<ToolRow>): Map<ToolRow, string> => {
  const keys = new Map<ToolRow, string>();
  const used = new Set<string>();
  for (const tool of tools) {
    if (!tool.imported) continue;
    const path = tool.operationPath !== "" ? tool.operationPath : tool.path;
    const key = used.has(matchKey(tool.method, path)) ? exactKey(tool.method, path) : matchKey(tool.method, path);
    used.add(key);
    keys.set(tool, key);
  }
  return keys;
};

/** The tool fields a re-sync compares (method and path are what matched). */
export const COMPARED = [
  "name",
  "path",
  "title",
  "description",
  "pathArgsJSONSchema",
  "queryArgsJSONSchema",
  "reqBodyJSONSchema",
  "reqContentType",
  "reqBodyEncoding",
  "respBodyJSONSchema",
  "headers",
  "oauth2Scopes",
  "longRunning",
] as const;

export const changedFields = (stored: ToolRow, next: ToolRow): Array<string> =>
  COMPARED.filter((field) => canonical(stored[field]) !== canonical(next[field]));

export const reportTool = (row: Pick<ToolRow, "name" | "method" | "path">) => ({
  name: row.name,
  method: row.method,
  path: row.path,
});

/** A report being filled in. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] extends ReadonlyArray<infer E> ? Array<E> : T[K] };

/** A report with nothing in it yet. */
export const emptyReport = (): Mutable<ImportReport> => ({
  added: [],
  changed: [],
  removed: [],
  kept: [],
  unchanged: 0,
  skipped: [],
  warnings: [],
});

/** A dry run's records: tools not stored yet (and a provider not created yet) have no ids. */
export const withoutNewIds = (
  record: ProviderRecord,
  newIds: ReadonlySet<string>,
  providerIsNew: boolean,
): ImportResult["provider"] => {
  const { id, tools, ...rest } = record;
  const shown = tools.map((tool): ImportResult["provider"]["tools"][number] => {
    if (!newIds.has(tool.id)) return tool;
    const { id: _id, providerID, ...fields } = tool;
    return providerIsNew ? fields : { ...fields, providerID };
  });
  return providerIsNew ? { ...rest, tools: shown } : { ...rest, id, tools: shown };
};
