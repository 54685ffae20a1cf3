import type { VariableRow } from "../storage/rows.js";
import { MASKED_VALUE, type VariableRecord } from "./variable-schema.js";

/** The wire form of a stored variable; a SECRET's value is masked. */
export const toVariableRecord = (row: VariableRow): VariableRecord => ({
  id: row.id,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  type: row.type,
  value: row.type === "SECRET" ? MASKED_VALUE : row.value,
  name: row.name,
  perCaller: row.perCaller,
});
