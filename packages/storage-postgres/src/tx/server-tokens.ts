import { Effect } from "effect";
import { insertRow } from "../table/table.js";
import { missingServerBreach } from "./breaches.js";
import type { Operations } from "./operations.js";

export const serverTokenOperations: Operations<
  | "insertServerToken"
  | "deleteServerToken"
  | "findServerToken"
  | "findServerTokenByHash"
  | "listServerTokens"
  | "countServerTokens"
> = (tables) => {
  const { serverTokens } = tables;
  const insert = insertRow(serverTokens);
  const select = `select ${serverTokens.json("k")} as r from server_tokens k`;

  return (ctx) => ({
    insertServerToken: (row) =>
      ctx.runner.guarded(
        ctx.runner
          .rows(insert.sql, insert.params(row))
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", missingServerBreach("serverToken", row.serverId))),
      ),
    deleteServerToken: (id) => Effect.asVoid(ctx.rows("delete from server_tokens where id = $1", [id])),
    findServerToken: (id) => ctx.one(`${select} where k.id = $1`, [id], serverTokens.decode),
    findServerTokenByHash: (valueHash) =>
      ctx.one(`${select} where k.value_hash = $1`, [valueHash], serverTokens.decode),
    listServerTokens: (serverId) =>
      ctx.many(`${select} where k.server_id = $1 order by k.created_at, k.id`, [serverId], serverTokens.decode),
    countServerTokens: (serverId) =>
      ctx.count("select count(*)::int as n from server_tokens where server_id = $1", [serverId]),
  });
};
