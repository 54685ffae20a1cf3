import {
  type LockStore,
  ReferenceViolation,
  type ServerGraph,
  type ServerRow,
  type ServerStore,
  storedServerRow,
  UniqueViolation,
} from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { inCreationOrder } from "./creation-order.js";
import { clone, cloneAll, count, defined, find, insertNew, nameTaken } from "./row-copies.js";
import type { MemoryReferences } from "./server-references.js";
import type { Tables } from "./tables.js";

/** Servers and their graphs; the locks (transactions already run one at a time here). */
export const memoryServers = (tables: Tables, references: MemoryReferences): ServerStore & LockStore => {
  const { providers, tools, prompts, resources, servers, serverTokens } = tables;
  const { dropTokenHoldings, referencingServers } = references;
  /** The first record a server names that does not exist (or a tool linked under another provider). */
  const missingLink = (server: ServerRow): string | undefined => {
    for (const link of server.providers) {
      if (!providers.has(link.providerId)) return `provider '${link.providerId}' does not exist`;
      for (const toolId of link.toolIds)
        if (tools.get(toolId)?.providerId !== link.providerId)
          return `tool '${toolId}' of provider '${link.providerId}' does not exist`;
    }
    for (const id of server.resourceIds) if (!resources.has(id)) return `resource '${id}' does not exist`;
    for (const id of server.promptIds) if (!prompts.has(id)) return `prompt '${id}' does not exist`;
    const connection = server.gitConnectionId ?? null;
    if (connection !== null && !tables.gitConnections.has(connection))
      return `git connection '${connection}' does not exist`;
    return undefined;
  };

  /** Checks a server row about to be stored under `tenant`. */
  const checkServer = (row: ServerRow, tenant: string): Effect.Effect<void, UniqueViolation | ReferenceViolation> => {
    if (nameTaken(servers, row.id, (other) => other.tenant === tenant && other.name === row.name))
      return Effect.fail(new UniqueViolation({ kind: "server", name: row.name }));
    const missing = missingLink(row);
    return missing === undefined
      ? Effect.void
      : Effect.fail(new ReferenceViolation({ kind: "server", detail: missing }));
  };

  /** The kind of the server's git connection, as the graph's `gitProvider` (no key without one). */
  const gitProviderOf = (server: ServerRow) => {
    const kind = tables.gitConnections.get(server.gitConnectionId ?? "")?.kind;
    return kind === undefined ? {} : { gitProvider: kind };
  };

  const graphOf = (server: ServerRow): ServerGraph => ({
    server: clone(server),
    providers: cloneAll(server.providers.map((link) => providers.get(link.providerId)).filter(defined)),
    tools: cloneAll(server.providers.flatMap((link) => link.toolIds.map((id) => tools.get(id))).filter(defined)),
    resources: cloneAll(server.resourceIds.map((id) => resources.get(id)).filter(defined)),
    prompts: cloneAll(server.promptIds.map((id) => prompts.get(id)).filter(defined)),
    ...gitProviderOf(server),
  });

  return {
    insertServer: (row, maxServers) =>
      Effect.suspend(() => {
        // The quota is checked first: an insert it refuses reports no breach.
        if (
          maxServers !== undefined &&
          [...servers.values()].filter((s) => s.tenant === row.tenant).length >= maxServers
        )
          return Effect.succeed(false);
        return checkServer(row, row.tenant).pipe(
          Effect.andThen(() => insertNew(servers, "server", storedServerRow(row))),
          Effect.as(true),
        );
      }),
    updateServer: (row, expectedVersion) =>
      Effect.suspend(() => {
        const stored = servers.get(row.id);
        if (stored === undefined || stored.version !== expectedVersion) return Effect.succeed(false);
        return checkServer(row, stored.tenant).pipe(
          Effect.andThen(() => {
            servers.set(row.id, { ...clone(storedServerRow(row)), tenant: stored.tenant, createdAt: stored.createdAt });
            return true;
          }),
        );
      }),
    deleteServer: (id) =>
      Effect.sync(() => {
        for (const [tokenId, token] of serverTokens)
          if (token.serverId === id) {
            serverTokens.delete(tokenId);
            dropTokenHoldings(tokenId);
          }
        tables.gitSyncs.delete(id);
        tables.serverRevisions.delete(id);

        for (const [approvalId, approval] of tables.approvals)
          if (approval.serverId === id) tables.approvals.delete(approvalId);
        servers.delete(id);
      }),
    findServer: find(servers),
    findServerGraph: (id) =>
      Effect.sync(() => {
        const server = servers.get(id);
        return server === undefined ? undefined : graphOf(server);
      }),
    listServerGraphs: (tenant) =>
      Effect.sync(() => inCreationOrder([...servers.values()].filter((row) => row.tenant === tenant)).map(graphOf)),
    // Transactions already run one at a time here, so every lock is held.
    lock: () => Effect.void,
    countServers: (tenant) => count(servers, (row) => row.tenant === tenant),
    serversReferencing: (reference) =>
      Effect.sync(() => referencingServers(reference).map(({ id, tenant }) => ({ id, tenant }))),
  };
};
