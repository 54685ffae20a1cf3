import {
  type ProviderSearch,
  type ProviderStore,
  UniqueViolation,
  variablesReferencedBy,
  visibleTo,
} from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { compareCreation, inCreationOrder } from "./creation-order.js";
import { clone, cloneAll, count, defined, find, insertNew, nameTaken } from "./row-copies.js";
import type { MemoryReferences } from "./server-references.js";
import type { Tables } from "./tables.js";

/** Providers: the records, their listing (what a viewer sees: `visibleTo`), and the lookup a server write makes. */
export const memoryProviders = (tables: Tables, references: MemoryReferences): ProviderStore => {
  const { providers, tools, prompts, resources, variables } = tables;
  const { dropConnections, unreferenced } = references;
  const listTools = (providerId: string) =>
    cloneAll(inCreationOrder([...tools.values()].filter((tool) => tool.providerId === providerId)));

  const searchProviders = (search: ProviderSearch) => {
    const contains = (text: string, part: string | undefined) =>
      part === undefined || text.toLowerCase().includes(part.toLowerCase());
    const matches = inCreationOrder(
      [...providers.values()].filter(
        (p) =>
          visibleTo(search.viewerTenant, p) &&
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

    findProvidersAndTools: (providerIds, toolIds, variablesOf) =>
      Effect.sync(() => {
        const found = {
          providers: cloneAll([...new Set(providerIds)].map((id) => providers.get(id)).filter(defined)),
          tools: cloneAll([...new Set(toolIds)].map((id) => tools.get(id)).filter(defined)),
        };
        if (variablesOf === undefined) return found;
        const named = new Set(variablesReferencedBy(found.tools));
        const rows = [...variables.values()].filter((row) => row.tenant === variablesOf && named.has(row.name));
        return { ...found, variables: cloneAll(rows) };
      }),
  };
};
