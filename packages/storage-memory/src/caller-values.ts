import { type CallerValueStore, ReferenceViolation } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { inCreationOrder } from "./creation-order.js";
import { clone, cloneAll, find, insertNew } from "./row-copies.js";
import type { Tables } from "./tables.js";

/** Deletes the caller values and forms that `matches` (the cascades of a variable or a server token). */
export const dropCallerValuesOf =
  (tables: Tables) => (matches: (row: { variableId: string; serverTokenId: string | null }) => boolean) => {
    for (const [id, row] of tables.callerValues) if (matches(row)) tables.callerValues.delete(id);
    for (const [id, row] of tables.callerValueForms) if (matches(row)) tables.callerValueForms.delete(id);
  };

/** Callers' own values of per-caller variables and the forms under way (docs/api-rules.md §23). */
export const memoryCallerValues = (tables: Tables): CallerValueStore => {
  const { variables, serverTokens, callerValues, callerValueForms } = tables;
  const missingReference = (row: { variableId: string; serverTokenId: string | null }) =>
    !variables.has(row.variableId)
      ? `variable '${row.variableId}' does not exist`
      : row.serverTokenId !== null && !serverTokens.has(row.serverTokenId)
        ? `server token '${row.serverTokenId}' does not exist`
        : undefined;
  return {
    findCallerValues: (variableIds, principal) =>
      Effect.sync(() => {
        const wanted = new Set(variableIds);
        return cloneAll(
          [...callerValues.values()].filter((r) => wanted.has(r.variableId) && r.principal === principal),
        );
      }),
    findCallerValueById: find(callerValues),
    listCallerValues: (variableId) =>
      Effect.sync(() =>
        cloneAll(inCreationOrder([...callerValues.values()].filter((row) => row.variableId === variableId))),
      ),
    putCallerValue: (row) =>
      Effect.suspend(() => {
        const missing = missingReference(row);
        if (missing !== undefined) return Effect.fail(new ReferenceViolation({ kind: "callerValue", detail: missing }));
        let stored = row;
        for (const other of callerValues.values())
          if (other.variableId === row.variableId && other.principal === row.principal)
            stored = { ...row, id: other.id, createdAt: other.createdAt };
        callerValues.set(stored.id, clone(stored));
        return Effect.succeed(clone(stored));
      }),
    deleteCallerValue: (id) => Effect.sync(() => void callerValues.delete(id)),
    insertCallerValueForm: (row) =>
      Effect.suspend(() => {
        const missing = missingReference(row);
        return missing === undefined
          ? insertNew(callerValueForms, "callerValue", row)
          : Effect.fail(new ReferenceViolation({ kind: "callerValue", detail: missing }));
      }),
    findCallerValueForm: find(callerValueForms),
    takeCallerValueForm: (id) =>
      Effect.sync(() => {
        const row = callerValueForms.get(id);
        callerValueForms.delete(id);
        return row && clone(row);
      }),
    pruneCallerValueForms: (before, limit) =>
      Effect.sync(() => {
        const expired = [...callerValueForms.values()]
          .filter((row) => row.expiresAt.getTime() < before.getTime())
          .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
          .slice(0, limit);
        for (const row of expired) callerValueForms.delete(row.id);
        return expired.length;
      }),
  };
};
