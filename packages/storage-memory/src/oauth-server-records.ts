import type { OAuthServerRecordRow, StorageTx } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import type { Tables } from "./tables.js";

type Names =
  | "upsertOAuthServerRecord"
  | "findOAuthServerRecord"
  | "findOAuthServerRecordByUid"
  | "consumeOAuthServerRecord"
  | "deleteOAuthServerRecord"
  | "deleteOAuthServerRecordsOfGrant"
  | "deleteOAuthServerGrantsOfServerToken"
  | "pruneOAuthServerRecords";

const deleteWhere = (records: Map<string, OAuthServerRecordRow>, doomed: (row: OAuthServerRecordRow) => boolean) => {
  let deleted = 0;
  for (const [id, row] of records)
    if (doomed(row)) {
      records.delete(id);
      deleted++;
    }
  return deleted;
};

/** The operations on the records of the service's OAuth authorization server, over `tables`. */
export const memoryOAuthServerRecords = (tables: Tables): Pick<StorageTx, Names> => {
  const { oauthServerRecords: records } = tables;
  const copy = (row: OAuthServerRecordRow | undefined) => (row === undefined ? undefined : structuredClone(row));
  return {
    upsertOAuthServerRecord: (row) =>
      Effect.sync(() => {
        const stored = records.get(row.id);
        records.set(row.id, {
          ...structuredClone(row),
          serverTokenId: row.serverTokenId ?? stored?.serverTokenId ?? null,
          consumedAt: row.consumedAt ?? stored?.consumedAt ?? null,
        });
      }),
    findOAuthServerRecord: (id) => Effect.sync(() => copy(records.get(id))),
    findOAuthServerRecordByUid: (model, uid) =>
      Effect.sync(() => copy([...records.values()].find((row) => row.model === model && row.uid === uid))),
    consumeOAuthServerRecord: (id, at) =>
      Effect.sync(() => {
        const stored = records.get(id);
        if (stored !== undefined && stored.consumedAt === null) records.set(id, { ...stored, consumedAt: at });
      }),
    deleteOAuthServerRecord: (id) => Effect.sync(() => void records.delete(id)),
    deleteOAuthServerRecordsOfGrant: (model, grantId) =>
      Effect.sync(() => deleteWhere(records, (row) => row.model === model && row.grantId === grantId)),
    deleteOAuthServerGrantsOfServerToken: (serverTokenId) =>
      Effect.sync(() => {
        const grants = new Set(
          [...records.values()]
            .filter((row) => row.serverTokenId === serverTokenId && row.grantId !== null)
            .map((row) => row.grantId),
        );
        return deleteWhere(records, (row) => row.serverTokenId === serverTokenId || grants.has(row.grantId));
      }),
    pruneOAuthServerRecords: (before, limit) =>
      Effect.sync(() => {
        const expired = [...records.values()]
          .filter((row) => row.expiresAt !== null && row.expiresAt.getTime() < before.getTime())
          .slice(0, Math.max(0, Math.floor(limit)));
        for (const row of expired) records.delete(row.id);
        return expired.length;
      }),
  };
};
