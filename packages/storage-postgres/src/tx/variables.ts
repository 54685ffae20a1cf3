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
  const findOne = `${select} where v.id = $1`;

  return (ctx) => ({
    insertVariable: (row) =>
      ctx.runner.guarded(
        ctx.runner
          .rows(insert.sql, insert.params(row))
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", uniqueBreach(row.name))),
      ),
    // Nothing reads its answer and it changes no unique column: it travels with the next statement, usually
    // COMMIT (PATCH /variables/{id} is then two round trips: the read ahead, then BEGIN, this, the audit event
    // and COMMIT).
    updateVariable: (row) => ctx.runner.deferred(update.sql, update.params(row)),
    deleteVariable: (id) => Effect.asVoid(ctx.rows("delete from variables where id = $1", [id])),
    // The first statement of PATCH /variables/{id}: a lock-free read, run ahead of the transaction (on a
    // pooled connection of its own, Runner.readAhead), so that the write holds its connection, and on the
    // embedded store the session, for its last round trip only.
    findVariable: (id) =>
      Effect.map(ctx.readAhead(findOne, [id], true), (rows) =>
        rows[0] === undefined ? undefined : variables.decode(rows[0].r),
      ),
    findVariablesByName: (tenant, names) =>
      ctx.many(`${select} where v.tenant = $1 and v.name = any($2::text[])`, [tenant, [...names]], variables.decode),
    listVariables: (tenant) =>
      ctx.many(`${select} where v.tenant = $1 order by v.created_at, v.id`, [tenant], variables.decode),
    countVariables: (tenant) => ctx.count("select count(*)::int as n from variables where tenant = $1", [tenant]),
  });
};
