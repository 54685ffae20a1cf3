import { Effect } from "effect";
import { insertRow } from "../table/table.js";
import type { Operations } from "./operations.js";

// Server revisions (schema/server-revision-entity.ts): inserted in the transaction of the change, read one
// at a time by (server, version), listed newest first without their documents, pruned below a version.

export const serverRevisionOperations: Operations<
  "insertServerRevision" | "findServerRevision" | "listServerRevisions" | "pruneServerRevisions"
> = (tables) => {
  const { serverRevisions } = tables;
  const insert = insertRow(serverRevisions);
  const find = `select ${serverRevisions.json("v")} as r from server_revisions v where v.server_id = $1 and v.version = $2`;
  const list = `select (select count(*) from server_revisions where server_id = $1)::int as n,
      coalesce((select json_agg(json_build_object('id', v.id, 'serverId', v.server_id, 'tenant', v.tenant,
          'version', v.version, 'createdAt', round(extract(epoch from v.created_at) * 1000)::float8,
          'actorSub', v.actor_sub, 'actorClientId', v.actor_client_id, 'summary', v.summary) order by v.version desc)
        from (select * from server_revisions where server_id = $1 and version < $2
              order by version desc limit $3) v), '[]'::json) as r`;

  return (ctx) => ({
    // Nothing reads it back in its transaction: it travels with the next statement, usually COMMIT.
    insertServerRevision: (row) => ctx.runner.deferred(insert.sql, insert.params(row)),
    findServerRevision: (serverId, version) => ctx.one(find, [serverId, version], serverRevisions.decode),
    listServerRevisions: (search) =>
      Effect.map(
        ctx.rows(list, [search.serverId, search.before ?? 2_147_483_647, Math.max(0, Math.floor(search.limit))]),
        (result) => {
          const row = result[0] ?? { n: 0, r: [] };
          const items = (row.r as Array<Record<string, unknown>>).map((item) => {
            const {
              document: _d,
              content: _c,
              ...entry
            } = serverRevisions.decode({
              ...item,
              document: null,
              content: null,
            });
            return entry;
          });
          return { items, matchCount: Number(row.n) };
        },
      ),
    pruneServerRevisions: (serverId, keepFrom) =>
      ctx.runner.deferred("delete from server_revisions where server_id = $1 and version < $2", [serverId, keepFrom]),
  });
};
