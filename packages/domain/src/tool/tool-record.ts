import type { ToolRow } from "../storage/rows.js";
import type { ToolRecord } from "./tool-schema.js";

/** The wire form of a stored tool. */
export const toToolRecord = (row: ToolRow): ToolRecord => ({
  id: row.id,
  providerID: row.providerId,
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
