import { ReferenceViolation } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { insertRow } from "../table/table.js";
import type { ConstraintBreach } from "../sql/db-errors.js";
import { unexpected } from "./breaches.js";
import type { Operations } from "./operations.js";

// Per-caller values of variables and their forms under way (docs/api-rules.md §23). A value is put with one
// upsert on its (variable, principal) key, so two instances storing at once leave one row; a form is taken
// with `delete … returning`, so only one submission can use it.

export const callerValueOperations: Operations<
  | "findCallerValues"
  | "findCallerValueById"
  | "listCallerValues"
  | "putCallerValue"
  | "deleteCallerValue"
  | "insertCallerValueForm"
  | "findCallerValueForm"
  | "takeCallerValueForm"
  | "pruneCallerValueForms"
> = (tables) => {
  const { callerValues: values, callerValueForms: forms } = tables;
  const insert = insertRow(values);
  const updated = values.columns
    .filter((column) => !["id", "variable_id", "tenant", "principal", "created_at"].includes(column.name))
    .map((column) => `${column.name} = excluded.${column.name}`)
    .join(", ");
  const upsert = `${insert.sql} on conflict (variable_id, principal) do update set ${updated} returning ${values.json(
    "caller_values",
  )} as r`;
  const select = `select ${values.json("v")} as r from caller_values v`;
  const selectForm = `select ${forms.json("f")} as r from caller_value_forms f`;
  const insertForm = insertRow(forms);
  const referenceViolation = () =>
    new ReferenceViolation({ kind: "callerValue", detail: "its variable or server token does not exist" });
  const referenceBreach = (breach: ConstraintBreach) =>
    breach.code === "23503" ? Effect.fail(referenceViolation()) : unexpected(breach);

  return (ctx) => ({
    findCallerValues: (variableIds, principal) =>
      ctx.many(
        `${select} where v.variable_id = any($1::text[]) and v.principal = $2`,
        [[...variableIds], principal],
        values.decode,
      ),
    findCallerValueById: (id) => ctx.one(`${select} where v.id = $1`, [id], values.decode),
    listCallerValues: (variableId) =>
      ctx.many(`${select} where v.variable_id = $1 order by v.created_at, v.id`, [variableId], values.decode),
    putCallerValue: (row) =>
      ctx.runner.guarded(
        ctx.runner.rows(upsert, insert.params(row)).pipe(
          Effect.map((rows) => values.decode(rows[0]?.r)),
          Effect.catchTag("ConstraintBreach", referenceBreach),
        ),
      ),
    deleteCallerValue: (id) => Effect.asVoid(ctx.rows("delete from caller_values where id = $1", [id])),
    insertCallerValueForm: (row) =>
      ctx.runner.guarded(
        ctx.runner
          .rows(insertForm.sql, insertForm.params(row))
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", referenceBreach)),
      ),
    findCallerValueForm: (id) => ctx.one(`${selectForm} where f.id = $1`, [id], forms.decode),
    takeCallerValueForm: (id) =>
      ctx.one(`delete from caller_value_forms f where f.id = $1 returning ${forms.json("f")} as r`, [id], forms.decode),
    // Rows another transaction is pruning (or taking) are skipped, so concurrent forms never wait on each other.
    pruneCallerValueForms: (before, limit) =>
      Effect.map(
        ctx.rows(
          `delete from caller_value_forms where id in (
             select id from caller_value_forms where expires_at < $1::timestamptz order by expires_at limit $2
             for update skip locked)
           returning 1`,
          [before.toISOString(), Math.max(0, Math.floor(limit))],
        ),
        (rows) => rows.length,
      ),
  });
};
