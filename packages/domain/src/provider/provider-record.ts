import type { ProviderRow, ToolRow } from "../storage/rows.js";
import { toToolRecord } from "../tool/tool-record.js";
import type { ProviderRecord } from "./provider-schema.js";

/** The wire form of a stored provider with the given tools; the client secret never leaves. */
export const toProviderRecord = (row: ProviderRow, tools: ReadonlyArray<ToolRow>): ProviderRecord => ({
  id: row.id,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  version: row.version,
  apiType: row.apiType,
  visibilityType: row.visibilityType,
  baseURL: row.baseURL,
  documentURL: row.documentURL,
  iconURL: row.iconURL,
  secretPrefix: row.secretPrefix,
  name: row.name,
  description: row.description,
  tools: tools.map(toToolRecord),
  ...(row.oauth2Config === null
    ? {}
    : {
        oauth2Config: {
          clientID: row.oauth2Config.clientID,
          authURL: row.oauth2Config.authURL,
          tokenURL: row.oauth2Config.tokenURL,
        },
      }),
});
