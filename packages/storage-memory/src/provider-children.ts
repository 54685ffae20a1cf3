import {
  type PromptRow,
  type PromptStore,
  ReferenceViolation,
  type ResourceRow,
  type ResourceStore,
  type ToolRow,
  type ToolSearch,
  type ToolStore,
  UniqueViolation,
} from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { compareCreation, inCreationOrder } from "./creation-order.js";
import { clone, cloneAll, insertNew, nameTaken } from "./row-copies.js";
import type { MemoryReferences } from "./server-references.js";
import type { Tables } from "./tables.js";

/** The tools, prompts and resources of providers, which share their rules. */
export const memoryProviderChildren = (
  tables: Tables,
  references: MemoryReferences,
): ToolStore & PromptStore & ResourceStore => {
  const { providers, tools, prompts, resources } = tables;
  const { unreferenced } = references;
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
  // The page is cut before copying: only the rows handed out are cloned.
  const searchTools = (search: ToolSearch) => {
    const part = search.contains?.toLowerCase();
    const matches = inCreationOrder(
      [...tools.values()].filter(
        (t) =>
          t.providerId === search.providerId &&
          (part === undefined ||
            [t.name, t.title, t.description, t.method, t.path].some((text) => text.toLowerCase().includes(part))),
      ),
    );
    const { after, limit } = search;
    const rest = after === undefined ? matches : matches.filter((t) => compareCreation(t, after) > 0);
    const page = limit === undefined ? rest : rest.slice(0, Math.max(0, limit));
    return { items: cloneAll(page), matchCount: matches.length };
  };
  const promptOps = providerChildren("prompt", prompts);
  const resourceOps = providerChildren("resource", resources);
  return {
    insertTool: toolOps.insert,
    updateTool: toolOps.update,
    deleteTool: toolOps.remove,
    findTool: toolOps.find,
    listTools: toolOps.list,
    searchTools: (search) => Effect.sync(() => searchTools(search)),

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
  };
};
