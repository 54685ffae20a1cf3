import type { ProviderSearch, StorageTx } from "@mcpsm/domain/storage";
import { provider, TENANT_A, TENANT_B } from "@mcpsm/storage-contract";
import { Effect } from "effect";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makePostgresStorage, type PostgresStorage } from "../src/index.js";
import { MatchCountCache } from "../src/read-cache/match-count-cache.js";
import { createServerDatabase, migratedStorage, serverUrl, targets, truncateAll } from "./support/targets.js";

// The remembered match counts of substring-filtered provider listings (read-cache/match-count-cache.ts):
// reused while the generations of the viewer's tenant and of PUBLIC are unchanged, counted again in the
// same statement as soon as either moved, whichever instance moved it. (Exactness after every kind of
// change, on both adapters: storage-contract's provider-search cases.)

describe("MatchCountCache", () => {
  it("keeps at most maxEntries, least recently used out", () => {
    const cache = new MatchCountCache({ maxEntries: 2 });
    cache.store("a", { generations: "1:1", n: 1 });
    cache.store("b", { generations: "1:1", n: 2 });
    cache.lookup("a");
    cache.store("c", { generations: "1:1", n: 3 });
    expect([cache.lookup("a")?.n, cache.lookup("b"), cache.lookup("c")?.n]).toEqual([1, undefined, 3]);
  });

  it("stays bounded under any number of distinct filters, and keeps no over-long key", () => {
    const cache = new MatchCountCache({ maxEntries: 100, maxKeyLength: 64 });
    for (let i = 0; i < 10_000; i++) cache.store(`filter ${i}`, { generations: "1:1", n: i });
    expect(cache.size).toBe(100);
    cache.store("x".repeat(65), { generations: "1:1", n: 1 });
    expect(cache.lookup("x".repeat(65))).toBeUndefined();
  });
});

const billing = (n: number, override: Parameters<typeof provider>[1] = {}) =>
  provider(n, { name: `billing ${n}`, ...override });

const searchOf =
  (handle: PostgresStorage) =>
  async (query: Partial<ProviderSearch> = {}, viewerTenant = TENANT_A) =>
    (
      await Effect.runPromise(
        handle.storage.read((tx) => tx.searchProviders({ viewerTenant, nameContains: "billing", limit: 10, ...query })),
      )
    ).matchCount;

const commitOn = (handle: PostgresStorage) => (work: (tx: StorageTx) => Effect.Effect<unknown, unknown>) =>
  Effect.runPromise(handle.storage.transaction(work));

for (const target of targets)
  describe(`remembered match counts (${target.name})`, () => {
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
    beforeAll(async () => {
      handle = await migratedStorage(await target.create());
    });
    afterAll(() => handle?.dispose());
    beforeEach(async () => {
      await truncateAll(handle);
      await commitOn(handle)((tx) =>
        Effect.all([1, 2, 3].map((n) => tx.insertProvider(billing(n))).concat(tx.insertProvider(provider(4)))),
      );
    });

    it("a repeated search reuses its count until a change, then counts the change", async () => {
      const search = searchOf(handle);
      const { counted, reused } = handle.matchCounts;
      expect(await search()).toBe(3);
      expect(await search()).toBe(3);
      expect(await search()).toBe(3);
      expect([handle.matchCounts.counted - counted, handle.matchCounts.reused - reused]).toEqual([1, 2]);
      await commitOn(handle)((tx) => tx.deleteProvider(billing(2).id));
      expect(await search()).toBe(2);
      expect(await search()).toBe(2);
      expect([handle.matchCounts.counted - counted, handle.matchCounts.reused - reused]).toEqual([2, 3]);
    });

    it("another tenant's INTERNAL providers do not move the viewer's count; its PUBLIC ones do", async () => {
      const search = searchOf(handle);
      expect(await search()).toBe(3);
      const counted = handle.matchCounts.counted;
      await commitOn(handle)((tx) => tx.insertProvider(billing(5, { tenant: TENANT_B })));
      expect(await search()).toBe(3);
      expect(handle.matchCounts.counted).toBe(counted);
      await commitOn(handle)((tx) => tx.insertProvider(billing(6, { tenant: TENANT_B, visibilityType: "PUBLIC" })));
      expect(await search()).toBe(4);
      expect(handle.matchCounts.counted).toBe(counted + 1);
    });

    it("a count made inside a transaction is not remembered", async () => {
      const size = handle.matchCounts.size;
      await commitOn(handle)((tx) => tx.searchProviders({ viewerTenant: TENANT_A, nameContains: "inside", limit: 1 }));
      expect(handle.matchCounts.size).toBe(size);
    });
  });

// Two instances on one server database (PGlite serves one client, so this needs TEST_DATABASE_URL): the
// other instance's writes show in this one's very next search, with no notification to wait for.
if (serverUrl !== undefined)
  describe("remembered match counts, two instances on one database", () => {
    let first: PostgresStorage & { readonly dispose: () => Promise<void> };
    let second: PostgresStorage;
    beforeAll(async () => {
      const database = await createServerDatabase();
      first = await migratedStorage(database);
      second = await makePostgresStorage(database.options);
    });
    afterAll(async () => {
      await second?.close();
      await first?.dispose();
    });

    it("a change committed by the other instance is counted by the next search", async () => {
      const search = searchOf(first);
      await commitOn(first)((tx) => Effect.all([1, 2].map((n) => tx.insertProvider(billing(n)))));
      expect(await search()).toBe(2);
      expect(await search()).toBe(2);
      await commitOn(second)((tx) => tx.insertProvider(billing(3)));
      expect(await search()).toBe(3);
      // A PUBLIC provider of another tenant, written by the other instance: created, renamed away, made INTERNAL.
      const other = billing(4, { tenant: TENANT_B, visibilityType: "PUBLIC" });
      await commitOn(second)((tx) => tx.insertProvider(other));
      expect(await search()).toBe(4);
      await commitOn(second)((tx) =>
        tx.updateProvider({ ...other, visibilityType: "INTERNAL", version: 2 }, other.version),
      );
      expect(await search()).toBe(3);
      expect(await searchOf(second)({}, TENANT_B)).toBe(1);
      await commitOn(first)((tx) => tx.deleteProvider(other.id));
      expect(await searchOf(second)({}, TENANT_B)).toBe(0);
    });
  });
