import {
  type PromptRow,
  type ProviderSearch,
  type RecordKind,
  ReferenceViolation,
  type ResourceRow,
  type ServerGraph,
  type ServerReference,
  type ServerRow,
  type StorageTx,
  type ToolRow,
  UniqueViolation,
} from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { compareCreation, inCreationOrder } from "./creation-order.js";
import { memoryAuditEvents } from "./audit-events.js";
import { memoryOAuthServerRecords } from "./oauth-server-records.js";
import { memoryGitSync } from "./git-sync.js";
import { memorySecrets } from "./secrets.js";
import type { Tables } from "./tables.js";

// Rows are cloned on the way in and on the way out, so neither the caller's objects nor the rows handed
// back share anything with the store (structuredClone keeps Dates). Every operation is wrapped in
// Effect.suspend so it touches the tables when it runs, not when the effect is built.

const clone = <T>(row: T): T => structuredClone(row);
const cloneAll = <T>(rows: Iterable<T>): Array<T> => Array.from(rows, clone);
const defined = <T>(value: T | undefined): value is T => value !== undefined;

const nameTaken = <Row extends { readonly id: string }>(
  table: Map<string, Row>,
  id: string,
  sameScopeAndName: (other: Row) => boolean,
) => {
  for (const other of table.values()) if (other.id !== id && sameScopeAndName(other)) return true;
  return false;
};

/** A second row under an existing id is a bug of the caller (ids are generated), not a domain conflict. */
const insertNew = <Row extends { readonly id: string }>(table: Map<string, Row>, kind: RecordKind, row: Row) =>
  table.has(row.id)
    ? Effect.dieMessage(`${kind} '${row.id}' already exists`)
    : Effect.sync(() => void table.set(row.id, clone(row)));

/** The StorageTx of one transaction, reading and writing `tables` (the transaction's own copy). */
export const makeMemoryTx = (tables: Tables): StorageTx => {
  const { providers, tools, prompts, resources, variables, servers, serverTokens } = tables;
  const { upstreamConnections, upstreamAuthorizations } = tables;
  /** Deletes the upstream connections (and consents under way) that `matches` (a cascade). */
  const dropConnections = (matches: (row: { providerId: string; serverTokenId: string | null }) => boolean) => {
    for (const [id, row] of upstreamConnections) if (matches(row)) upstreamConnections.delete(id);
    for (const [id, row] of upstreamAuthorizations) if (matches(row)) upstreamAuthorizations.delete(id);
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

  const listTools = (providerId: string) =>
    cloneAll(inCreationOrder([...tools.values()].filter((tool) => tool.providerId === providerId)));

  const searchProviders = (search: ProviderSearch) => {
    const contains = (text: string, part: string | undefined) =>
      part === undefined || text.toLowerCase().includes(part.toLowerCase());
    const matches = inCreationOrder(
      [...providers.values()].filter(
        (p) =>
          (p.tenant === search.viewerTenant || p.visibilityType === "PUBLIC") &&
          contains(p.name, search.nameContains) &&
          contains(p.baseURL, search.baseURLContains) &&
          (search.apiType === undefined || p.apiType === search.apiType) &&
          (search.visibility === undefined || p.visibilityType === search.visibility),
      ),
    );
    const { after } = search;
    const page = (after === undefined ? matches : matches.filter((p) => compareCreation(p, after) > 0)).slice(
      0,
      Math.max(0, search.limit),
    );
    return {
      items: page.map((provider) => ({ provider: clone(provider), tools: listTools(provider.id) })),
      matchCount: matches.length,
    };
  };

  /** The operations shared by the records a provider owns (tools, prompts, resources). */
  const providerChildren = <Row extends ToolRow | PromptRow | ResourceRow>(
    kind: "tool" | "prompt" | "resource",
    table: Map<string, Row>,
  ) => ({
    insert: (row: Row) =>
      Effect.suspend((): Effect.Effect<void, UniqueViolation | ReferenceViolation> => {
        if (!providers.has(row.providerId))
          return Effect.fail(new ReferenceViolation({ kind, detail: `provider '${row.providerId}' does not exist` }));
        if (nameTaken(table, row.id, (other) => other.providerId === row.providerId && other.name === row.name))
          return Effect.fail(new UniqueViolation({ kind, name: row.name }));
        return insertNew(table, kind, row);
      }),
    // The owner and creation time stay as stored: a child never moves to another provider.
    update: (row: Row) =>
      Effect.suspend(() => {
        const stored = table.get(row.id);
        if (stored === undefined) return Effect.void;
        if (nameTaken(table, row.id, (other) => other.providerId === stored.providerId && other.name === row.name))
          return Effect.fail(new UniqueViolation({ kind, name: row.name }));
        table.set(row.id, { ...clone(row), providerId: stored.providerId, createdAt: stored.createdAt });
        return Effect.void;
      }),
    remove: (id: string) =>
      Effect.suspend(() => unreferenced(kind, { kind, id })).pipe(
        Effect.andThen(() => table.delete(id)),
        Effect.asVoid,
      ),
    find: (id: string) => Effect.sync(() => table.get(id)).pipe(Effect.map((row) => row && clone(row))),
    list: (providerId: string) =>
      Effect.sync(() => cloneAll(inCreationOrder([...table.values()].filter((row) => row.providerId === providerId)))),
  });

  const toolOps = providerChildren("tool", tools);
  const promptOps = providerChildren("prompt", prompts);
  const resourceOps = providerChildren("resource", resources);
  const find =
    <Row>(table: Map<string, Row>) =>
    (id: string) =>
      Effect.sync(() => table.get(id)).pipe(Effect.map((row) => row && clone(row)));
  const count = <Row>(table: Map<string, Row>, belongs: (row: Row) => boolean) =>
    Effect.sync(() => [...table.values()].filter(belongs).length);

  return {
    insertProvider: (row) =>
      Effect.suspend(() =>
        nameTaken(providers, row.id, (other) => other.tenant === row.tenant && other.name === row.name)
          ? Effect.fail(new UniqueViolation({ kind: "provider", name: row.name }))
          : insertNew(providers, "provider", row),
      ),
    // Compare-and-set first, as `UPDATE … WHERE id = $1 AND version = $2` would: a stale write never clashes.
    updateProvider: (row, expectedVersion) =>
      Effect.suspend(() => {
        const stored = providers.get(row.id);
        if (stored === undefined || stored.version !== expectedVersion) return Effect.succeed(false);
        if (nameTaken(providers, row.id, (other) => other.tenant === stored.tenant && other.name === row.name))
          return Effect.fail(new UniqueViolation({ kind: "provider", name: row.name }));
        providers.set(row.id, { ...clone(row), tenant: stored.tenant, createdAt: stored.createdAt });
        return Effect.succeed(true);
      }),
    deleteProvider: (id) =>
      Effect.suspend(() => unreferenced("provider", { kind: "provider", id })).pipe(
        Effect.andThen(() => {
          for (const table of [tools, prompts, resources])
            for (const [childId, child] of table) if (child.providerId === id) table.delete(childId);
          dropConnections((row) => row.providerId === id);
          providers.delete(id);
        }),
      ),
    findProvider: find(providers),
    findProviderWithTools: (id) =>
      Effect.sync(() => {
        const provider = providers.get(id);
        return provider === undefined ? undefined : { provider: clone(provider), tools: listTools(id) };
      }),
    searchProviders: (search) => Effect.sync(() => searchProviders(search)),
    countProviders: (tenant) => count(providers, (row) => row.tenant === tenant),

    insertTool: toolOps.insert,
    updateTool: toolOps.update,
    deleteTool: toolOps.remove,
    findTool: toolOps.find,
    listTools: toolOps.list,

    insertPrompt: promptOps.insert,
    updatePrompt: promptOps.update,
    deletePrompt: promptOps.remove,
    findPrompt: promptOps.find,
    listPrompts: promptOps.list,

    insertResource: resourceOps.insert,
    updateResource: resourceOps.update,
    deleteResource: resourceOps.remove,
    findResource: resourceOps.find,
    listResources: resourceOps.list,

    insertVariable: (row) =>
      Effect.suspend(() =>
        nameTaken(variables, row.id, (other) => other.tenant === row.tenant && other.name === row.name)
          ? Effect.fail(new UniqueViolation({ kind: "variable", name: row.name }))
          : insertNew(variables, "variable", row),
      ),
    // updateVariable cannot report a clash, so the name stays as stored along with the tenant.
    updateVariable: (row) =>
      Effect.sync(() => {
        const stored = variables.get(row.id);
        if (stored !== undefined)
          variables.set(row.id, {
            ...clone(row),
            tenant: stored.tenant,
            name: stored.name,
            createdAt: stored.createdAt,
          });
      }),
    deleteVariable: (id) => Effect.sync(() => void variables.delete(id)),
    findVariable: find(variables),
    listVariables: (tenant) =>
      Effect.sync(() => cloneAll(inCreationOrder([...variables.values()].filter((row) => row.tenant === tenant)))),
    countVariables: (tenant) => count(variables, (row) => row.tenant === tenant),
    findVariablesByName: (tenant, names) =>
      Effect.sync(() => {
        const wanted = new Set(names);
        return cloneAll([...variables.values()].filter((row) => row.tenant === tenant && wanted.has(row.name)));
      }),

    insertServer: (row, maxServers) =>
      Effect.suspend(() => {
        // The quota is checked first: an insert it refuses reports no breach.
        if (
          maxServers !== undefined &&
          [...servers.values()].filter((s) => s.tenant === row.tenant).length >= maxServers
        )
          return Effect.succeed(false);
        return checkServer(row, row.tenant).pipe(
          Effect.andThen(() => insertNew(servers, "server", row)),
          Effect.as(true),
        );
      }),
    updateServer: (row, expectedVersion) =>
      Effect.suspend(() => {
        const stored = servers.get(row.id);
        if (stored === undefined || stored.version !== expectedVersion) return Effect.succeed(false);
        return checkServer(row, stored.tenant).pipe(
          Effect.andThen(() => {
            servers.set(row.id, { ...clone(row), tenant: stored.tenant, createdAt: stored.createdAt });
            return true;
          }),
        );
      }),
    deleteServer: (id) =>
      Effect.sync(() => {
        for (const [tokenId, token] of serverTokens)
          if (token.serverId === id) {
            serverTokens.delete(tokenId);
            dropConnections((row) => row.serverTokenId === tokenId);
          }
        tables.gitSyncs.delete(id);
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
        dropConnections((row) => row.serverTokenId === id);
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

    ...memorySecrets(tables),

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
    ...memoryAuditEvents(tables),
    ...memoryOAuthServerRecords(tables),
    ...memoryGitSync(tables, (reference) => referencingServers(reference)),

    findProvidersAndTools: (providerIds, toolIds) =>
      Effect.sync(() => ({
        providers: cloneAll([...new Set(providerIds)].map((id) => providers.get(id)).filter(defined)),
        tools: cloneAll([...new Set(toolIds)].map((id) => tools.get(id)).filter(defined)),
      })),
  };
};
