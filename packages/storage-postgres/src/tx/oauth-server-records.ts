import { Effect } from "effect";
import { insertRow } from "../table/table.js";
import type { Operations } from "./operations.js";

// The records of the service's OAuth authorization server (schema/oauth-server-record-entity.ts): an upsert
// per save, point reads by id or by (model, uid), deletes by grant and by the server token a grant was
// made with, and pruning of expired records in bounded batches.

export const oauthServerRecordOperations: Operations<
  | "upsertOAuthServerRecord"
  | "findOAuthServerRecord"
  | "findOAuthServerRecordByUid"
  | "consumeOAuthServerRecord"
  | "deleteOAuthServerRecord"
  | "deleteOAuthServerRecordsOfGrant"
  | "deleteOAuthServerGrantsOfServerToken"
  | "pruneOAuthServerRecords"
> = (tables) => {
  const { oauthServerRecords: records } = tables;
  const insert = insertRow(records);
  // A save never forgets the server token a grant was made with, nor that a record was consumed. In the
  // update, the stored row goes by the table's name (`excluded` is the row the save proposed).
  const set = records.columns
    .filter((column) => column !== records.key)
    .map((column) =>
      column.field === "serverTokenId" || column.field === "consumedAt"
        ? `${column.name} = coalesce(excluded.${column.name}, ${records.name}.${column.name})`
        : `${column.name} = excluded.${column.name}`,
    )
    .join(", ");
  const upsert = `${insert.sql} on conflict (${records.key.name}) do update set ${set}`;
  const select = `select ${records.json("r")} as r from oauth_server_records r`;

  return (ctx) => ({
    upsertOAuthServerRecord: (row) => Effect.asVoid(ctx.rows(upsert, insert.params(row))),
    findOAuthServerRecord: (id) => ctx.one(`${select} where r.id = $1`, [id], records.decode),
    findOAuthServerRecordByUid: (model, uid) =>
      ctx.one(`${select} where r.uid = $2 and r.model = $1 limit 1`, [model, uid], records.decode),
    consumeOAuthServerRecord: (id, at) =>
      Effect.asVoid(
        ctx.rows("update oauth_server_records set consumed_at = $2 where id = $1 and consumed_at is null", [
          id,
          at.toISOString(),
        ]),
      ),
    deleteOAuthServerRecord: (id) => Effect.asVoid(ctx.rows("delete from oauth_server_records where id = $1", [id])),
    deleteOAuthServerRecordsOfGrant: (model, grantId) =>
      Effect.map(
        ctx.rows("delete from oauth_server_records where grant_id = $2 and model = $1 returning 1", [model, grantId]),
        (result) => result.length,
      ),
    deleteOAuthServerGrantsOfServerToken: (serverTokenId) =>
      Effect.map(
        ctx.rows(
          `delete from oauth_server_records where server_token_id = $1 or grant_id in (
             select grant_id from oauth_server_records where server_token_id = $1 and grant_id is not null)
           returning 1`,
          [serverTokenId],
        ),
        (result) => result.length,
      ),
    // SKIP LOCKED lets two instances prune side by side.
    pruneOAuthServerRecords: (before, limit) =>
      Effect.map(
        ctx.rows(
          `delete from oauth_server_records where id in (
             select id from oauth_server_records where expires_at < $1::timestamptz
             order by expires_at limit $2 for update skip locked)
           returning 1`,
          [before.toISOString(), Math.max(0, Math.floor(limit))],
        ),
        (result) => result.length,
      ),
  });
};
