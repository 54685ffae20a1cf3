import { type RecordKind, ReferenceViolation, type ServerReference, type ServerRow } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { inCreationOrder } from "./creation-order.js";
import { dropCallerValuesOf } from "./caller-values.js";
import type { Tables } from "./tables.js";

/** What the tables say about references between records: which servers use a record, and the cascades. */
export const memoryReferences = (tables: Tables) => {
  const { prompts, resources, servers, upstreamConnections, upstreamAuthorizations } = tables;
  const dropCallerValues = dropCallerValuesOf(tables);
  /** Deletes the upstream connections (and consents under way) that `matches` (a cascade). */
  const dropConnections = (matches: (row: { providerId: string; serverTokenId: string | null }) => boolean) => {
    for (const [id, row] of upstreamConnections) if (matches(row)) upstreamConnections.delete(id);
    for (const [id, row] of upstreamAuthorizations) if (matches(row)) upstreamAuthorizations.delete(id);
  };
  /** Deletes what a server token's caller holds: its connections and its own variable values (cascades). */
  const dropTokenHoldings = (tokenId: string) => {
    dropConnections((row) => row.serverTokenId === tokenId);
    dropCallerValues((row) => row.serverTokenId === tokenId);
  };

  const uses = (server: ServerRow, reference: ServerReference): boolean => {
    switch (reference.kind) {
      case "provider":
        // Tools are linked under their own provider, so a provider is used through its tools only via a link.
        return (
          server.providers.some((link) => link.providerId === reference.id) ||
          server.resourceIds.some((id) => resources.get(id)?.providerId === reference.id) ||
          server.promptIds.some((id) => prompts.get(id)?.providerId === reference.id)
        );
      case "tool":
        return server.providers.some((link) => link.toolIds.includes(reference.id));
      case "resource":
        return server.resourceIds.includes(reference.id);
      case "prompt":
        return server.promptIds.includes(reference.id);
      case "gitConnection":
        return server.gitConnectionId === reference.id;
    }
  };

  const referencingServers = (reference: ServerReference) =>
    inCreationOrder([...servers.values()].filter((server) => uses(server, reference)));

  /** Fails when a server references the record about to be deleted (ON DELETE RESTRICT). */
  const unreferenced = (kind: RecordKind, reference: ServerReference) => {
    const users = referencingServers(reference);
    return users.length === 0
      ? Effect.void
      : Effect.fail(
          new ReferenceViolation({
            kind,
            detail: `${reference.kind} '${reference.id}' is used by server(s) ${users.map((s) => `'${s.id}'`).join(", ")}`,
          }),
        );
  };

  return { dropConnections, dropTokenHoldings, referencingServers, unreferenced };
};

/** The reference rules of one transaction's tables. */
export type MemoryReferences = ReturnType<typeof memoryReferences>;
