import type { UpstreamTaskStore } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { clone, find } from "./row-copies.js";
import type { Tables } from "./tables.js";

/** Tasks following long-running upstream operations (docs/api-rules.md §22); they expire, no cascade. */
export const memoryUpstreamTasks = (tables: Tables): UpstreamTaskStore => {
  const { upstreamTasks } = tables;
  return {
    insertUpstreamTask: (row) => Effect.sync(() => void upstreamTasks.set(row.id, clone(row))),
    findUpstreamTask: find(upstreamTasks),
    updateUpstreamTask: (row, expected) =>
      Effect.sync(() => {
        const stored = upstreamTasks.get(row.id);
        if (stored === undefined || stored.status !== expected) return false;
        upstreamTasks.set(row.id, { ...clone(row), owner: stored.owner, createdAt: stored.createdAt });
        return true;
      }),
    deleteExpiredUpstreamTasks: (at, limit) =>
      Effect.sync(() => {
        const gone = [...upstreamTasks.values()].filter((r) => r.expiresAt <= at).slice(0, limit);
        for (const row of gone) upstreamTasks.delete(row.id);
        return gone.length;
      }),
  };
};
