import type { PromptRow } from "../storage/rows.js";
import type { PromptRecord } from "./prompt-schema.js";

/** The wire form of a stored prompt. */
export const toPromptRecord = (row: PromptRow): PromptRecord => ({
  id: row.id,
  providerID: row.providerId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  name: row.name,
  description: row.description,
  arguments: row.arguments,
  messages: row.messages,
});
