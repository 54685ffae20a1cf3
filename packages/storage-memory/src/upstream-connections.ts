import { ReferenceViolation, type UpstreamConnectionStore } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { inCreationOrder } from "./creation-order.js";
import { clone, cloneAll, find, insertNew } from "./row-copies.js";
import type { Tables } from "./tables.js";

/** Upstream OAuth connections and the consents on their way. */
export const memoryUpstreamConnections = (tables: Tables): UpstreamConnectionStore => {
  const { providers, serverTokens, upstreamConnections, upstreamAuthorizations } = tables;
  return {
    findUpstreamConnection: (providerId, tenant, principal) =>
      Effect.sync(() => {
        for (const row of upstreamConnections.values())
          if (row.providerId === providerId && row.tenant === tenant && row.principal === principal) return clone(row);
        return undefined;
      }),
    findUpstreamConnectionById: find(upstreamConnections),
    putUpstreamConnection: (row) =>
      Effect.suspend(() => {
        if (!providers.has(row.providerId))
          return Effect.fail(
            new ReferenceViolation({
              kind: "upstreamConnection",
              detail: `provider '${row.providerId}' does not exist`,
            }),
          );
        if (row.serverTokenId !== null && !serverTokens.has(row.serverTokenId))
          return Effect.fail(
            new ReferenceViolation({
              kind: "upstreamConnection",
              detail: `server token '${row.serverTokenId}' does not exist`,
            }),
          );
        let stored = row;
        for (const other of upstreamConnections.values())
          if (other.providerId === row.providerId && other.tenant === row.tenant && other.principal === row.principal)
            stored = { ...row, id: other.id, createdAt: other.createdAt };
        upstreamConnections.set(stored.id, clone(stored));
        return Effect.succeed(clone(stored));
      }),
    deleteUpstreamConnection: (id) => Effect.sync(() => void upstreamConnections.delete(id)),
    listUpstreamConnections: (providerId, tenant) =>
      Effect.sync(() =>
        cloneAll(
          inCreationOrder(
            [...upstreamConnections.values()].filter((row) => row.providerId === providerId && row.tenant === tenant),
          ),
        ),
      ),
    insertUpstreamAuthorization: (row) =>
      Effect.suspend(() =>
        providers.has(row.providerId) && (row.serverTokenId === null || serverTokens.has(row.serverTokenId))
          ? insertNew(upstreamAuthorizations, "upstreamConnection", row)
          : Effect.fail(
              new ReferenceViolation({
                kind: "upstreamConnection",
                detail: "its provider or server token does not exist",
              }),
            ),
      ),
    takeUpstreamAuthorization: (id) =>
      Effect.sync(() => {
        const row = upstreamAuthorizations.get(id);
        upstreamAuthorizations.delete(id);
        return row && clone(row);
      }),
    pruneUpstreamAuthorizations: (before, limit) =>
      Effect.sync(() => {
        const expired = [...upstreamAuthorizations.values()]
          .filter((row) => row.expiresAt.getTime() < before.getTime())
          .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
          .slice(0, limit);
        for (const row of expired) upstreamAuthorizations.delete(row.id);
        return expired.length;
      }),
  };
};
