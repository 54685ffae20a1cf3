import type { McpServerView } from "@mcpsm/domain/mcp";

// docs/api-rules.md §22, cache hints: every request checks the server's revision, so a change is served at
// once; what the service knows about how long a revision stays valid is how long it has stood. As HTTP caches
// do with Last-Modified (RFC 9111 §4.2.2), a list is advertised fresh for a tenth of its revision's age when
// compiled, never more than five minutes: a revision that has not moved for an hour is unlikely to move in the
// next six. Compiled once per revision, so the fast lane's kept tools/list carries the same value.

/** The longest freshness a list result advertises. */
export const MAX_LIST_TTL_MS = 5 * 60_000;

/** When the revision last moved: the latest change of the server or of a provider it depends on. */
const changedAt = (view: McpServerView): number => {
  let latest = view.server.updatedAt.getTime();
  for (const provider of view.providersById.values()) latest = Math.max(latest, provider.updatedAt.getTime());
  return latest;
};

/** The `ttlMs` of the server's list results, as of `now` (whole seconds, a tenth of the revision's age). */
export const listTtlMsOf = (view: McpServerView, now: number): number => {
  const age = Math.max(0, now - changedAt(view));
  return Math.min(MAX_LIST_TTL_MS, Math.floor(age / 10 / 1000) * 1000);
};
