import { Storage, type StorageTx } from "@mcpsm/domain/storage";
import { Effect, Layer } from "effect";
import { makeMemoryTx } from "./memory-tx.js";
import { makeMemoryCallLog } from "./tool-calls.js";
import { copyTables, emptyTables } from "./tables.js";

/**
 * A fresh, empty in-memory store implementing the storage port.
 *
 * Transactions run one at a time (a semaphore of one permit), each on its own copy of the tables that
 * replaces the committed tables only when the work succeeds; a failed, interrupted or dying transaction
 * therefore leaves no trace. Running one at a time makes them serializable, so compare-and-set and the
 * uniqueness checks can never race. Reads take the permit too but work on the committed tables directly
 * (the port's `read` runs read-only work, so there is nothing to roll back and no copy to make).
 * Transactions must not nest: a nested one would wait for the permit its caller holds. Its change stamp
 * counts the commits.
 */
export const makeMemoryStorage = (): typeof Storage.Service => {
  let committed = emptyTables();
  // The change stamp: one more on every commit (this process is the store's only writer).
  let commits = 0;
  const permit = Effect.unsafeMakeSemaphore(1);
  const atomically = <A, E, R>(work: (tx: StorageTx) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    permit.withPermits(1)(
      Effect.suspend(() => {
        const draft = copyTables(committed);
        return Effect.tap(work(makeMemoryTx(draft)), () => {
          committed = draft;
          commits++;
        });
      }),
    );
  const read = <A, E, R>(work: (tx: StorageTx) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    permit.withPermits(1)(Effect.suspend(() => work(makeMemoryTx(committed))));
  return { transaction: atomically, read, calls: makeMemoryCallLog(), changeStamp: () => commits };
};

/** The storage port backed by a new, empty in-memory store for each build of the layer. */
export const MemoryStorageLive: Layer.Layer<Storage> = Layer.sync(Storage, makeMemoryStorage);
