import type { CacheHint } from "@modelcontextprotocol/server";

/**
 * The cache hints of a server's list results (2026-07-28 `ttlMs`/`cacheScope`, stamped by the SDK only in that
 * era): fresh for `ttlMs`, private because a list is served to authenticated callers only.
 */
export const listCacheHints = (ttlMs: number) => {
  const hint: CacheHint = { ttlMs, cacheScope: "private" };
  return {
    "tools/list": hint,
    "prompts/list": hint,
    "resources/list": hint,
    "resources/templates/list": hint,
    "server/discover": hint,
  };
};
