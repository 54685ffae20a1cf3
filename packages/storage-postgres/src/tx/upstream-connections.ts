import { ReferenceViolation } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { insertRow } from "../table/table.js";
import { unexpected } from "./breaches.js";
import type { Operations } from "./operations.js";

// Upstream OAuth connections and consents under way (docs/api-rules.md §13). A connection is put with one
// upsert on its (provider, tenant, principal) key, so two instances finishing a consent at once leave one
// row; a consent is taken with `delete … returning`, so only one callback can use it.

export const upstreamConnectionOperations: Operations<
  | "findUpstreamConnection"
  | "findUpstreamConnectionById"
  | "putUpstreamConnection"
  | "deleteUpstreamConnection"
  | "listUpstreamConnections"
  | "insertUpstreamAuthorization"
  | "takeUpstreamAuthorization"
  | "pruneUpstreamAuthorizations"
> = (tables) => {
  const { upstreamConnections: connections, upstreamAuthorizations: authorizations } = tables;
  const insert = insertRow(connections);
  const updated = connections.columns
    .filter((column) => !["id", "provider_id", "tenant", "principal", "created_at"].includes(column.name))
    .map((column) => `${column.name} = excluded.${column.name}`)
    .join(", ");
  const upsert = `${insert.sql} on conflict (provider_id, tenant, principal) do update set ${updated} returning ${connections.json(
    "upstream_connections",
  )} as r`;
  const select = `select ${connections.json("c")} as r from upstream_connections c`;
  const insertAuthorization = insertRow(authorizations);
  const referenceViolation = (detail: string) => new ReferenceViolation({ kind: "upstreamConnection", detail });

  return (ctx) => ({
    findUpstreamConnection: (providerId, tenant, principal) =>
      ctx.one(
        `${select} where c.provider_id = $1 and c.tenant = $2 and c.principal = $3`,
        [providerId, tenant, principal],
        connections.decode,
      ),
    findUpstreamConnectionById: (id) => ctx.one(`${select} where c.id = $1`, [id], connections.decode),
    putUpstreamConnection: (row) =>
      ctx.runner.guarded(
        ctx.runner.rows(upsert, insert.params(row)).pipe(
          Effect.map((rows) => connections.decode(rows[0]?.r)),
          Effect.catchTag("ConstraintBreach", (breach) =>
            breach.code === "23503"
              ? Effect.fail(referenceViolation("its provider or server token does not exist"))
              : unexpected(breach),
          ),
        ),
      ),
    deleteUpstreamConnection: (id) => Effect.asVoid(ctx.rows("delete from upstream_connections where id = $1", [id])),
    listUpstreamConnections: (providerId, tenant) =>
      ctx.many(
        `${select} where c.provider_id = $1 and c.tenant = $2 order by c.created_at, c.id`,
        [providerId, tenant],
        connections.decode,
      ),
    insertUpstreamAuthorization: (row) =>
      ctx.runner.guarded(
        ctx.runner.rows(insertAuthorization.sql, insertAuthorization.params(row)).pipe(
          Effect.asVoid,
          Effect.catchTag("ConstraintBreach", (breach) =>
            breach.code === "23503"
              ? Effect.fail(referenceViolation("its provider or server token does not exist"))
              : unexpected(breach),
          ),
        ),
      ),
    takeUpstreamAuthorization: (id) =>
      ctx.one(
        `delete from upstream_authorizations a where a.id = $1 returning ${authorizations.json("a")} as r`,
        [id],
        authorizations.decode,
      ),
    // Rows another transaction is pruning (or taking) are skipped, so concurrent consents never wait on each other.
    pruneUpstreamAuthorizations: (before, limit) =>
      Effect.map(
        ctx.rows(
          `delete from upstream_authorizations where id in (
             select id from upstream_authorizations where expires_at < $1::timestamptz order by expires_at limit $2
             for update skip locked)
           returning 1`,
          [before.toISOString(), Math.max(0, Math.floor(limit))],
        ),
        (rows) => rows.length,
      ),
  });
};
