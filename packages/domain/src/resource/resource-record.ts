import type { ResourceRow } from "../storage/rows.js";
import type { ResourceRecord } from "./resource-schema.js";

/** The wire form of a stored resource. */
export const toResourceRecord = (row: ResourceRow): ResourceRecord => ({
  id: row.id,
  providerID: row.providerId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  name: row.name,
  description: row.description,
  uri: row.uri,
  mimeType: row.mimeType,
  size: row.size,
  annotations: row.annotations,
});
