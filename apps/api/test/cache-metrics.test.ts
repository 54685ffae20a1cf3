import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { registerCacheMetrics } from "../src/operations/cache-metrics.js";

// The cache metrics follow counters kept by the caches themselves (docs/decisions.md, "manysrv"): what they
// grew by between scrapes, even when a cache hands over its live counters object rather than a copy.

describe("cache metrics", () => {
  it("count what the caches' own counters grew by, from a live object too", async () => {
    const registry = new Registry();
    const compiled = { size: 2, bytes: 4096, compiles: 3, toolCount: 5, sharedCount: 1 };
    const readCache = { hits: 10, misses: 4, size: 7 };
    let replays = 1;
    let admissions = 2;
    registerCacheMetrics(registry, {
      compiled,
      gateReplays: () => replays,
      gateAdmissions: () => admissions,
      readCache: () => readCache,
    });
    const value = async (line: string) =>
      Number(new RegExp(`^${line.replace(/[{}]/g, "\\$&")} (\\S+)$`, "m").exec(await registry.metrics())?.[1] ?? 0);
    // What happened before the metrics were registered is not counted.
    expect(await value('mcpsm_read_cache_lookups_total{result="miss"}')).toBe(0);
    readCache.hits += 5;
    readCache.misses += 2;
    compiled.compiles += 1;
    replays += 3;
    admissions += 4;
    expect(await value('mcpsm_read_cache_lookups_total{result="hit"}')).toBe(5);
    expect(await value('mcpsm_read_cache_lookups_total{result="miss"}')).toBe(2);
    expect(await value("mcpsm_mcp_server_compiles_total")).toBe(1);
    expect(await value('mcpsm_mcp_admission_memo_lookups_total{result="hit"}')).toBe(3);
    expect(await value('mcpsm_mcp_admission_memo_lookups_total{result="miss"}')).toBe(1);
    expect(await value("mcpsm_read_cache_entries")).toBe(7);
    expect(await value("mcpsm_mcp_compiled_cache_bytes")).toBe(4096);
    readCache.misses += 1;
    expect(await value('mcpsm_read_cache_lookups_total{result="miss"}')).toBe(3);
  });
});
