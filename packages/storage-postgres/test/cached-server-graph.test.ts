import type { ReadTx } from "@mcpsm/domain/storage";
import { server, serverId } from "@mcpsm/storage-contract";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStorage } from "../src/index.js";
import { PointReadCache } from "../src/read-cache/point-read-cache.js";
import { migratedStorage, targets, untilServing } from "./support/targets.js";

// `cachedServerGraph` of the storage (and `peek` of the cache under it): the graph object the read cache
// serves now, and nothing once it would no longer serve it. Callers keep what they derive from that object
// (apps/api's serialised answers), so it must be exactly the object `findServerGraph` of a `read` answers.

describe("PointReadCache.peek", () => {
  it("answers what lookup would, without counting a lookup", () => {
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 600_000 });
    const value = { graph: 1 };
    expect(cache.peek("k")).toBeUndefined();
    cache.store("k", value, cache.current, performance.now());
    expect(cache.peek("k")).toBe(value);
    expect([cache.hits, cache.misses]).toEqual([0, 0]);
  });

  it("answers nothing after a change, while untrusted, or once the entry is too old", () => {
    const changed = new PointReadCache({ trusted: true, maxAgeMs: 600_000 });
    changed.store("k", 1, changed.current, performance.now());
    changed.changed();
    expect(changed.peek("k")).toBeUndefined();

    const untrusted = new PointReadCache({ trusted: true, maxAgeMs: 600_000 });
    untrusted.store("k", 1, untrusted.current, performance.now());
    untrusted.setTrusted(false);
    expect(untrusted.peek("k")).toBeUndefined();

    const old = new PointReadCache({ trusted: true, maxAgeMs: 1_000 });
    old.store("k", 1, old.current, performance.now() - 2_000);
    expect(old.peek("k")).toBeUndefined();
  });
});

for (const target of targets)
  describe(`cachedServerGraph of the adapter (${target.name})`, () => {
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };

    beforeAll(async () => {
      handle = await migratedStorage(await target.create(), {
        readCache: { maxAgeMs: 600_000, listen: target.name !== "pglite" },
      });
      await untilServing(handle);
      await Effect.runPromise(handle.storage.transaction((tx) => tx.insertServer(server(1))));
    });
    afterAll(() => handle?.dispose());

    const read = <A>(work: (tx: ReadTx) => Effect.Effect<A>) => Effect.runPromise(handle.storage.read(work));

    it("is the very graph a read answered, until a committed change drops it", async () => {
      const peek = handle.storage.cachedServerGraph!;
      // Wait out the notifications of the setup's commit, which drop the cache when they arrive.
      const deadline = Date.now() + 30_000;
      let graph = await read((tx) => tx.findServerGraph(serverId(1)));
      while (peek(serverId(1)) !== graph) {
        if (Date.now() > deadline) throw new Error("the graph read was not kept");
        await new Promise((resolve) => setTimeout(resolve, 5));
        graph = await read((tx) => tx.findServerGraph(serverId(1)));
      }
      expect(graph?.server.id).toBe(serverId(1));
      expect(await read((tx) => tx.findServerGraph(serverId(1)))).toBe(graph);
      expect(peek(serverId(2))).toBeUndefined();

      const renamed = { ...server(1), name: "renamed", version: 2 };
      expect(await Effect.runPromise(handle.storage.transaction((tx) => tx.updateServer(renamed, 1)))).toBe(true);
      // At once on the instance that committed.
      expect(peek(serverId(1))).toBeUndefined();
      const after = await read((tx) => tx.findServerGraph(serverId(1)));
      expect(after).not.toBe(graph);
      expect(after?.server.name).toBe("renamed");
    });
  });
