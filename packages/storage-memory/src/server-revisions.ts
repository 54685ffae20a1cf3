import type { ServerRevisionStore } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { clone } from "./row-copies.js";
import type { Tables } from "./tables.js";

/** Server revisions (docs/api-rules.md §21): per server, oldest first, replaced whole on write. */
export const memoryServerRevisions = (tables: Tables): ServerRevisionStore => {
  const { serverRevisions } = tables;
  const of = (serverId: string) => serverRevisions.get(serverId) ?? [];
  return {
    insertServerRevision: (row) =>
      Effect.suspend(() =>
        of(row.serverId).some((r) => r.version === row.version)
          ? Effect.dieMessage(`server '${row.serverId}' already has a revision at version ${row.version}`)
          : Effect.sync(() => {
              const rows = [...of(row.serverId), clone(row)].sort((a, b) => a.version - b.version);
              serverRevisions.set(row.serverId, rows);
            }),
      ),
    findServerRevision: (serverId, version) =>
      Effect.sync(() => {
        const found = of(serverId).find((r) => r.version === version);
        return found === undefined ? undefined : clone(found);
      }),
    listServerRevisions: (search) =>
      Effect.sync(() => {
        const all = of(search.serverId);
        const { before } = search;
        const newest = [...all].reverse().filter((r) => before === undefined || r.version < before);
        const items = newest
          .slice(0, Math.max(0, Math.floor(search.limit)))
          .map(({ document: _document, content: _content, ...entry }) => clone(entry));
        return { items, matchCount: all.length };
      }),
    pruneServerRevisions: (serverId, keepFrom) =>
      Effect.sync(() => {
        const rows = of(serverId);
        if (rows.some((r) => r.version < keepFrom))
          serverRevisions.set(
            serverId,
            rows.filter((r) => r.version >= keepFrom),
          );
      }),
  };
};
