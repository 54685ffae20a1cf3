import type { ServerTokenRow } from "../storage/rows.js";
import type { ServerTokenRecord } from "./server-token-schema.js";

/** The wire form of a stored token; `value` is only known, and only shown, at creation. */
export const toServerTokenRecord = (row: ServerTokenRow, value?: string): ServerTokenRecord => ({
  id: row.id,
  serverID: row.serverId,
  createdAt: row.createdAt.toISOString(),
  ...(row.expiresAt === null ? {} : { expiresAt: row.expiresAt.toISOString() }),
  name: row.name,
  ...(value === undefined ? {} : { value }),
});
