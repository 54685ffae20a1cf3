import { ReferenceViolation, type ServerTokenStore } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { inCreationOrder } from "./creation-order.js";
import { clone, cloneAll, count, find, insertNew } from "./row-copies.js";
import type { MemoryReferences } from "./server-references.js";
import type { Tables } from "./tables.js";

/** A server's tokens. */
export const memoryServerTokens = (tables: Tables, references: MemoryReferences): ServerTokenStore => {
  const { servers, serverTokens } = tables;
  const { dropTokenHoldings } = references;
  return {
    insertServerToken: (row) =>
      Effect.suspend(() =>
        servers.has(row.serverId)
          ? insertNew(serverTokens, "serverToken", row)
          : Effect.fail(
              new ReferenceViolation({ kind: "serverToken", detail: `server '${row.serverId}' does not exist` }),
            ),
      ),
    deleteServerToken: (id) =>
      Effect.sync(() => {
        serverTokens.delete(id);
        dropTokenHoldings(id);
      }),
    findServerToken: find(serverTokens),
    findServerTokenByHash: (valueHash) =>
      Effect.sync(() => {
        const row = inCreationOrder(serverTokens.values()).find((token) => token.valueHash === valueHash);
        return row && clone(row);
      }),
    listServerTokens: (serverId) =>
      Effect.sync(() =>
        cloneAll(inCreationOrder([...serverTokens.values()].filter((row) => row.serverId === serverId))),
      ),
    countServerTokens: (serverId) => count(serverTokens, (row) => row.serverId === serverId),
  };
};
