import { Effect } from "effect";
import { insertRow, updateRow } from "../table/table.js";
import type { Operations } from "./operations.js";

// Tasks of long-running upstream operations (docs/api-rules.md §22). A poller's write and a cancel are one
// compare-and-set on the status, so of an instance finishing a task and another cancelling it, one wins.

export const upstreamTaskOperations: Operations<
  "insertUpstreamTask" | "findUpstreamTask" | "updateUpstreamTask" | "deleteExpiredUpstreamTasks"
> = (tables) => {
  const { upstreamTasks } = tables;
  const insert = insertRow(upstreamTasks);
  const update = updateRow(upstreamTasks, ["owner", "createdAt"]);
  const select = `select ${upstreamTasks.json("t")} as r from upstream_tasks t`;
  return (ctx) => ({
    insertUpstreamTask: (row) => Effect.asVoid(ctx.rows(insert.sql, insert.params(row))),
    findUpstreamTask: (id) => ctx.one(`${select} where t.id = $1`, [id], upstreamTasks.decode),
    updateUpstreamTask: (row, expected) => {
      const params = update.params(row);
      return Effect.map(
        ctx.rows(`${update.sql} and status = $${params.length + 1} returning 1`, [...params, expected]),
        (rows) => rows.length > 0,
      );
    },
    // `skip locked`: two instances sweeping at once delete disjoint rows.
    deleteExpiredUpstreamTasks: (at, limit) =>
      Effect.map(
        ctx.rows(
          `delete from upstream_tasks where id in (select id from upstream_tasks where expires_at <= $1::timestamptz
             order by expires_at limit $2 for update skip locked) returning 1`,
          [at.toISOString(), limit],
        ),
        (rows) => rows.length,
      ),
  });
};
