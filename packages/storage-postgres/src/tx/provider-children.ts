import type { RecordKind } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import type { Table } from "../table/table.js";
import { insertRow, updateRow } from "../table/table.js";
import { insertBreach, uniqueBreach } from "./breaches.js";
import { deleteHeld } from "./delete-held.js";
import type { TxContext } from "./runner.js";

// Tools, prompts and resources are alike in storage: rows of a provider, named uniquely within it, held by
// the servers that chose them. Their operations differ only in table and kind.

interface ChildRow {
  readonly id: string;
  readonly providerId: string;
  readonly createdAt: Date;
  readonly name: string;
}

/** The statements of a provider's child table, prepared once. */
export const childStatements = <Row extends ChildRow>(table: Table<Row>, alias: string) => ({
  table,
  insert: insertRow(table),
  // A child never moves to another provider: provider and creation time stay as stored.
  update: updateRow(table, ["providerId", "createdAt"]),
  find: `select ${table.json(alias)} as r from ${table.name} ${alias} where ${alias}.id = $1`,
  list: `select ${table.json(alias)} as r from ${table.name} ${alias} where ${alias}.provider_id = $1 order by ${alias}.created_at, ${alias}.id`,
});

/** Insert, update, delete, find and list of a provider's child rows of `kind`. */
export const childOperations = <Row extends ChildRow>(
  ctx: TxContext,
  kind: RecordKind & ("tool" | "prompt" | "resource"),
  statements: ReturnType<typeof childStatements<Row>>,
) => {
  const { runner } = ctx;
  const { table, insert, update } = statements;
  return {
    insert: (row: Row) =>
      runner.guarded(
        runner
          .rows(insert.sql, insert.params(row))
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", insertBreach(kind, row.name))),
      ),
    update: (row: Row) =>
      runner.guarded(
        runner
          .rows(update.sql, update.params(row))
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", uniqueBreach(row.name))),
      ),
    delete: (id: string) => deleteHeld(ctx, table.name as "tools" | "prompts" | "resources", kind, id),
    find: (id: string) => ctx.one(statements.find, [id], table.decode),
    list: (providerId: string) => ctx.many(statements.list, [providerId], table.decode),
  };
};
