import { ConfigProvider, Effect } from "effect";
import { describe, expect, it } from "vitest";
import { memoryConfig } from "../src/config/memory-config.js";
import { quietCollectionDue, quietCollector } from "../src/launcher/quiet-time-garbage.js";

const MiB = 2 ** 20;
const SETTINGS = { intervalMs: 1000, minGrowthBytes: 32 * MiB, minSpacingMs: 30_000 };

/** A probe whose request count, RSS and clock the test sets, counting the collections asked for. */
const fakeProbe = (start: { requests: number; rss: number }, rssAfterCollection: number) => {
  const probe = {
    requests: start.requests,
    rss: start.rss,
    atMs: 0,
    collections: 0,
    get: {
      requests: () => probe.requests,
      rss: () => probe.rss,
      nowMs: () => probe.atMs,
      collect: () => {
        probe.collections += 1;
        probe.rss = rssAfterCollection;
      },
    },
  };
  return probe;
};

describe("the collection when the service goes quiet", () => {
  it("is due only when quiet since the last look, grown enough, and the last collection long enough ago", () => {
    const state = { requestsAtLastLook: 10, rssAfterLastCollection: 150 * MiB, lastCollectionAtMs: 0 };
    expect(quietCollectionDue(state, { requests: 10, rss: 190 * MiB, atMs: 30_000 }, SETTINGS)).toBe(true);
    expect(quietCollectionDue(state, { requests: 10, rss: 182 * MiB, atMs: 30_000 }, SETTINGS)).toBe(true);
    expect(quietCollectionDue(state, { requests: 11, rss: 190 * MiB, atMs: 30_000 }, SETTINGS)).toBe(false);
    expect(quietCollectionDue(state, { requests: 10, rss: 181 * MiB, atMs: 30_000 }, SETTINGS)).toBe(false);
    expect(quietCollectionDue(state, { requests: 10, rss: 190 * MiB, atMs: 29_999 }, SETTINGS)).toBe(false);
  });

  it("collects once after a burst, not while requests arrive, and not again until RSS grows again", () => {
    const probe = fakeProbe({ requests: 0, rss: 150 * MiB }, 150 * MiB);
    const collector = quietCollector(SETTINGS, probe.get);
    probe.atMs = 60_000;
    // A burst: requests between every look, RSS grows.
    for (let i = 1; i <= 5; i++) {
      probe.requests += 100;
      probe.rss += 20 * MiB;
      probe.atMs += 1000;
      expect(collector.look()).toBe(false);
    }
    // The first quiet look collects; the next ones have nothing to give back.
    expect(collector.look()).toBe(true);
    expect(probe.collections).toBe(1);
    probe.atMs += 60_000;
    expect(collector.look()).toBe(false);
    // A single request and a little growth: quiet again, but below the growth worth a collection.
    probe.requests += 1;
    probe.rss += 10 * MiB;
    expect(collector.look()).toBe(false);
    expect(collector.look()).toBe(false);
    expect(probe.collections).toBe(1);
    // Another burst that grows RSS past the threshold: collected once it stops.
    probe.requests += 500;
    probe.rss += 40 * MiB;
    expect(collector.look()).toBe(false);
    expect(collector.look()).toBe(true);
    expect(probe.collections).toBe(2);
  });

  it("waits out the spacing after a collection (not after start-up), however often the service pauses", () => {
    const probe = fakeProbe({ requests: 0, rss: 150 * MiB }, 150 * MiB);
    const collector = quietCollector(SETTINGS, probe.get);
    probe.atMs = 1_000;
    probe.rss = 200 * MiB;
    expect(collector.look()).toBe(true);
    // Bursts with pauses between them, each growing RSS well past the threshold, within 30 s.
    for (let t = 1_000; t < 30_000; t += 1_000) {
      probe.atMs = 1_000 + t;
      probe.requests += 50;
      probe.rss = 200 * MiB;
      expect(collector.look()).toBe(false);
      expect(collector.look()).toBe(false);
    }
    probe.atMs = 31_000;
    expect(collector.look()).toBe(true);
    expect(probe.collections).toBe(2);
  });

  it("counts growth from the lowest RSS seen, so memory V8 gave back by itself is not collected for", () => {
    const probe = fakeProbe({ requests: 0, rss: 200 * MiB }, 150 * MiB);
    const collector = quietCollector(SETTINGS, probe.get);
    probe.atMs = 60_000;
    probe.rss = 160 * MiB; // V8's own memory reducer ran
    expect(collector.look()).toBe(false);
    probe.requests += 1;
    probe.rss = 190 * MiB;
    expect(collector.look()).toBe(false);
    expect(collector.look()).toBe(false); // quiet, but 30 MiB above 160: not worth it
    probe.requests += 1;
    probe.rss = 193 * MiB;
    expect(collector.look()).toBe(false);
    expect(collector.look()).toBe(true);
  });

  it("is on by default (1 s, 32 MiB, 30 s), tunable, and off with MEMORY_QUIET_COLLECT_MS=0", async () => {
    const read = (env: Record<string, string>) =>
      Effect.runPromise(Effect.withConfigProvider(memoryConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))));
    expect(await read({})).toEqual({ quietCollection: SETTINGS });
    const tuned = {
      MEMORY_QUIET_COLLECT_MS: "250",
      MEMORY_QUIET_COLLECT_MIB: "64",
      MEMORY_QUIET_COLLECT_SPACING_S: "5",
    };
    expect(await read(tuned)).toEqual({
      quietCollection: { intervalMs: 250, minGrowthBytes: 64 * MiB, minSpacingMs: 5_000 },
    });
    expect(await read({ MEMORY_QUIET_COLLECT_MS: "0" })).toEqual({ quietCollection: undefined });
    await expect(read({ MEMORY_QUIET_COLLECT_MS: "-1" })).rejects.toThrow();
    await expect(read({ MEMORY_QUIET_COLLECT_MIB: "lots" })).rejects.toThrow();
    await expect(read({ MEMORY_QUIET_COLLECT_SPACING_S: "-5" })).rejects.toThrow();
  });
});
