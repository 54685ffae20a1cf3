import type { RecordKind } from "@mcpsm/domain/storage";
import { Effect } from "effect";

// Rows are cloned on the way in and on the way out, so neither the caller's objects nor the rows handed
// back share anything with the store (structuredClone keeps Dates). Every operation is wrapped in
// Effect.suspend so it touches the tables when it runs, not when the effect is built.

export const clone = <T>(row: T): T => structuredClone(row);
export const cloneAll = <T>(rows: Iterable<T>): Array<T> => Array.from(rows, clone);
export const defined = <T>(value: T | undefined): value is T => value !== undefined;

export const nameTaken = <Row extends { readonly id: string }>(
  table: Map<string, Row>,
  id: string,
  sameScopeAndName: (other: Row) => boolean,
) => {
  for (const other of table.values()) if (other.id !== id && sameScopeAndName(other)) return true;
  return false;
};

/** A second row under an existing id is a bug of the caller (ids are generated), not a domain conflict. */
export const insertNew = <Row extends { readonly id: string }>(table: Map<string, Row>, kind: RecordKind, row: Row) =>
  table.has(row.id)
    ? Effect.dieMessage(`${kind} '${row.id}' already exists`)
    : Effect.sync(() => void table.set(row.id, clone(row)));

/** The row under `id`, copied; undefined when none. */
export const find =
  <Row>(table: Map<string, Row>) =>
  (id: string) =>
    Effect.sync(() => table.get(id)).pipe(Effect.map((row) => row && clone(row)));

/** How many rows of `table` belong (to a tenant, a server). */
export const count = <Row>(table: Map<string, Row>, belongs: (row: Row) => boolean) =>
  Effect.sync(() => [...table.values()].filter(belongs).length);
