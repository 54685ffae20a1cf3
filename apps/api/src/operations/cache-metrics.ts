import { Counter, Gauge, type Registry } from "prom-client";

// The bounded caches of the MCP path (docs/decisions.md, "manysrv"): how full they are and how often they miss,
// read from their own counters when scraped (nothing is added to a request). A miss of the compiled-server
// cache is a graph read and a compile; a miss of the gate's memo an effect run over point reads; a miss of
// the point-read cache a statement. Counters are this instance's since it started.

/** What the compiled-server cache says of itself (mcp-runtime's CompiledServerCache). */
export interface CompiledCacheCounters {
  readonly size: number;
  readonly bytes: number;
  readonly compiles: number;
  readonly toolCount: number;
  readonly sharedCount: number;
}

/** What the store's point-read cache says of itself, when it keeps one. */
export interface ReadCacheCounters {
  readonly hits: number;
  readonly misses: number;
  readonly size: number;
}

export interface CacheSources {
  readonly compiled: CompiledCacheCounters;
  readonly gateReplays: () => number;
  readonly gateAdmissions: () => number;
  readonly readCache?: (() => ReadCacheCounters | undefined) | undefined;
}

/** A counter that follows a monotonic count kept elsewhere: what it grew by since the last scrape. */
const following = (registry: Registry, name: string, help: string, read: () => number) => {
  let seen = read();
  return new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = read();
      if (now > seen) this.inc(now - seen);
      seen = now;
    },
  });
};

/** Following counters of a hit/miss pair under one name, labelled `result`. */
const hitsAndMisses = (
  registry: Registry,
  name: string,
  help: string,
  read: () => { readonly hits: number; readonly misses: number },
) => {
  // Copied: `read` may answer the live counters object itself.
  const snapshot = () => {
    const { hits, misses } = read();
    return { hits, misses };
  };
  let seen = snapshot();
  return new Counter({
    name,
    help,
    labelNames: ["result"] as const,
    registers: [registry],
    collect() {
      const now = snapshot();
      if (now.hits > seen.hits) this.inc({ result: "hit" }, now.hits - seen.hits);
      if (now.misses > seen.misses) this.inc({ result: "miss" }, now.misses - seen.misses);
      seen = now;
    },
  });
};

const gauge = (registry: Registry, name: string, help: string, read: () => number) =>
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });

/** Registers the cache metrics of `sources` in `registry`. */
export const registerCacheMetrics = (registry: Registry, sources: CacheSources): void => {
  const { compiled } = sources;
  gauge(registry, "mcpsm_mcp_compiled_servers", "Compiled MCP servers kept in memory.", () => compiled.size);
  gauge(
    registry,
    "mcpsm_mcp_compiled_cache_bytes",
    "Estimated bytes the compiled-server cache holds (servers, their distinct tools and shared answers), bounded by MCP_COMPILED_CACHE_MIB.",
    () => compiled.bytes,
  );
  gauge(
    registry,
    "mcpsm_mcp_compiled_tools",
    "Distinct compiled tools the kept servers serve.",
    () => compiled.toolCount,
  );
  gauge(
    registry,
    "mcpsm_mcp_shared_answers",
    "Distinct tools/list answers the kept servers hold (one copy for every server answering alike).",
    () => compiled.sharedCount,
  );
  following(
    registry,
    "mcpsm_mcp_server_compiles_total",
    "MCP servers compiled: compiled-server cache misses (a cold or evicted server, or a new revision).",
    () => compiled.compiles,
  );
  hitsAndMisses(
    registry,
    "mcpsm_mcp_admission_memo_lookups_total",
    "MCP requests admitted from the gate's memo (hit) or by reading the store (miss).",
    () => {
      const hits = sources.gateReplays();
      return { hits, misses: sources.gateAdmissions() - hits };
    },
  );
  const readCache = sources.readCache;
  if (readCache === undefined) return;
  hitsAndMisses(
    registry,
    "mcpsm_read_cache_lookups_total",
    "Point reads of the store answered from its read cache (hit) or by a statement (miss).",
    () => readCache() ?? { hits: 0, misses: 0 },
  );
  gauge(
    registry,
    "mcpsm_read_cache_entries",
    "Entries the store's point-read cache holds.",
    () => readCache()?.size ?? 0,
  );
};
