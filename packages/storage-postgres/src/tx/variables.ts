import { Effect } from "effect";
import { insertRow, updateRow } from "../table/table.js";
import { uniqueBreach } from "./breaches.js";
import type { Operations } from "./operations.js";

export const variableOperations: Operations<
  | "insertVariable"
  | "updateVariable"
  | "deleteVariable"
  | "findVariable"
  | "findVariablesByName"
  | "listVariables"
  | "countVariables"
> = (tables) => {
  const { variables } = tables;
  const insert = insertRow(variables);
  // updateVariable cannot report a clash, so tenant, name and creation time stay as stored.
  const update = updateRow(variables, ["tenant", "name", "createdAt"]);
  const select = `select ${variables.json("v")} as r from variables v`;

  return (ctx) => ({
    insertVariable: (row) =>
      ctx.runner.guarded(
        ctx.runner
          .rows(insert.sql, insert.params(row))
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", uniqueBreach(row.name))),
      ),
    updateVariable: (row) => Effect.asVoid(ctx.rows(update.sql, update.params(row))),
    deleteVariable: (id) => Effect.asVoid(ctx.rows("delete from variables where id = $1", [id])),
    findVariable: (id) => ctx.one(`${select} where v.id = $1`, [id], variables.decode),
    findVariablesByName: (tenant, names) =>
      ctx.many(`${select} where v.tenant = $1 and v.name = any($2::text[])`, [tenant, [...names]], variables.decode),
    listVariables: (tenant) =>
      ctx.many(`${select} where v.tenant = $1 order by v.created_at, v.id`, [tenant], variables.decode),
    countVariables: (tenant) => ctx.count("select count(*)::int as n from variables where tenant = $1", [tenant]),
  });
};
