import { UniqueViolation, type VariableStore } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { inCreationOrder } from "./creation-order.js";
import { clone, cloneAll, count, find, insertNew, nameTaken } from "./row-copies.js";
import { dropCallerValuesOf } from "./caller-values.js";
import type { Tables } from "./tables.js";

/** A tenant's variables. */
export const memoryVariables = (tables: Tables): VariableStore => {
  const { variables } = tables;
  return {
    insertVariable: (row) =>
      Effect.suspend(() =>
        nameTaken(variables, row.id, (other) => other.tenant === row.tenant && other.name === row.name)
          ? Effect.fail(new UniqueViolation({ kind: "variable", name: row.name }))
          : insertNew(variables, "variable", row),
      ),
    // updateVariable cannot report a clash, so the name stays as stored along with the tenant.
    updateVariable: (row) =>
      Effect.sync(() => {
        const stored = variables.get(row.id);
        if (stored !== undefined)
          variables.set(row.id, {
            ...clone(row),
            tenant: stored.tenant,
            name: stored.name,
            createdAt: stored.createdAt,
          });
      }),
    deleteVariable: (id) =>
      Effect.sync(() => {
        variables.delete(id);
        dropCallerValuesOf(tables)((row) => row.variableId === id);
      }),
    findVariable: find(variables),
    listVariables: (tenant) =>
      Effect.sync(() => cloneAll(inCreationOrder([...variables.values()].filter((row) => row.tenant === tenant)))),
    countVariables: (tenant) => count(variables, (row) => row.tenant === tenant),
    findVariablesByName: (tenant, names) =>
      Effect.sync(() => {
        const wanted = new Set(names);
        return cloneAll([...variables.values()].filter((row) => row.tenant === tenant && wanted.has(row.name)));
      }),
  };
};
