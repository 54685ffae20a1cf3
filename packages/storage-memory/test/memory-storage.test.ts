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
