import { Storage } from "@mcpsm/domain/storage";
import { provider, storageContract } from "@mcpsm/storage-contract";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { MemoryStorageLive, makeMemoryStorage } from "../src/index.js";

storageContract("memory", async () => ({ storage: makeMemoryStorage(), dispose: async () => {} }));

describe("MemoryStorageLive", () => {
  it("builds a fresh, empty store each time the layer is built", async () => {
    const insertThenCount = Effect.flatMap(Storage, (storage) =>
      storage.transaction((tx) =>
        Effect.zipRight(tx.insertProvider(provider(1)), tx.countProviders(provider(1).tenant)),
      ),
    );
    expect(await Effect.runPromise(Effect.provide(insertThenCount, MemoryStorageLive))).toBe(1);
    expect(await Effect.runPromise(Effect.provide(insertThenCount, MemoryStorageLive))).toBe(1);
  });
});

describe("the change stamp", () => {
  it("moves with every commit, and neither with a read nor with a transaction that failed", async () => {
    const storage = makeMemoryStorage();
    const stamp = () => storage.changeStamp?.();
    const first = stamp();
    expect(first).toBeTypeOf("number");
    await Effect.runPromise(storage.read((tx) => tx.countProviders(provider(1).tenant)));
    expect(stamp()).toBe(first);
    await Effect.runPromiseExit(
      storage.transaction((tx) => Effect.zipRight(tx.insertProvider(provider(1)), Effect.fail("changed my mind"))),
    );
    expect(stamp()).toBe(first);
    await Effect.runPromise(storage.transaction((tx) => tx.insertProvider(provider(1))));
    const second = stamp();
    expect(second).not.toBe(first);
    await Effect.runPromise(storage.transaction((tx) => tx.deleteProvider(provider(1).id)));
    expect(stamp()).not.toBe(second);
  });
});
