import type { ToolRow } from "../storage/rows.js";

/** A stored GET tool with nothing optional set (no schemas, headers or scopes), changed by `over`. */
export const testToolRow = (over: Partial<ToolRow> = {}): ToolRow => ({
  id: "AAAAAAAAAAA",
  providerId: "BBBBBBBBBBB",
  createdAt: new Date(0),
  updatedAt: new Date(0),
  method: "GET",
  path: "/x",
  name: "x",
  title: "",
  description: "",
  pathArgsJSONSchema: null,
  queryArgsJSONSchema: null,
  reqBodyJSONSchema: null,
  reqContentType: "application/json",
  reqBodyEncoding: {},
  respBodyJSONSchema: null,
  outputSchemaMode: "LENIENT",
  responseFilter: null,
  headers: [],
  oauth2Scopes: [],
  imported: false,
  operationPath: "",
  longRunning: false,
  ...over,
});
