import { Unavailable } from "@mcpsm/domain/errors";
import type { StorageTx } from "@mcpsm/domain/storage";
import { server, serverId, TENANT_A } from "@mcpsm/storage-contract";
import { Cause, Effect, Exit, Option } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStorage, PostgresStorageOptions } from "../src/index.js";
import { createEmbeddedDatabase, migratedStorage } from "./support/targets.js";

// The embedded store's change stamp (`Storage.changeStamp`, what the MCP gate's memo replays under). One
// process owns the embedded database, so it offers a stamp at once, with no echo to wait for: it moves after
// each of this instance's COMMITs (one that got no answer too: it may have committed), never before COMMIT
// has returned, and never for a read, a transaction that sent nothing, or one rolled back.

const configurations: ReadonlyArray<{ readonly name: string; readonly extra: Partial<PostgresStorageOptions> }> = [
  // As apps/api's open-storage.ts opens it: the stamp is the read cache's generation.
  { name: "with its read cache (as the service opens it)", extra: { readCache: { listen: false } } },
  // A bare adapter on the embedded database: the stamp is its count of commits.
  { name: "without a read cache", extra: {} },
];

for (const configuration of configurations)
  describe(`the embedded store's change stamp, ${configuration.name}`, () => {
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
    /**
     * While `watching`: the stamp each time a round trip ending in COMMIT was handed to the driver (what a read
     * starting then would take).
     */
    const atCommit: Array<number | undefined> = [];
    let watching = false;

    beforeAll(async () => {
      handle = await migratedStorage(await createEmbeddedDatabase(), {
        ...configuration.extra,
        onStatement: (sql) => {
          if (watching && /(^|;)\s*commit\s*$/i.test(sql.trim())) atCommit.push(stamp());
        },
      });
      await commit((tx) => tx.insertServer(server(1)));
    }, 180_000);
    afterAll(() => handle?.dispose());

    const stamp = () => handle.storage.changeStamp?.();
    const commit = <A, E>(work: (tx: StorageTx) => Effect.Effect<A, E>) =>
      Effect.runPromise(handle.storage.transaction(work));
    const stored = async () => (await Effect.runPromise(handle.storage.read((tx) => tx.findServer(serverId(1)))))!;

    it("is offered at once: no other process writes the database", () => {
      expect(stamp()).toBeTypeOf("number");
    });

    it("moves once per committed write, only after its COMMIT has returned", async () => {
      for (let n = 0; n < 3; n++) {
        const current = await stored();
        const before = stamp();
        atCommit.length = 0;
        let during: number | undefined;
        watching = true;
        const updated = await commit((tx) =>
          Effect.tap(
            tx.updateServer({ ...current, name: `renamed ${n}`, version: current.version + 1 }, current.version),
            () => Effect.sync(() => (during = stamp())),
          ),
        ).finally(() => (watching = false));
        expect(updated).toBe(true);
        // The write was sent, but not committed: a read stamped now must not take a newer stamp.
        expect(during).toBe(before);
        expect(atCommit).toEqual([before]);
        expect(stamp()).toBe(before! + 1);
        expect((await stored()).name).toBe(`renamed ${n}`);
      }
    });

    it("does not move on reads, nor on a transaction that sent nothing", async () => {
      const before = stamp();
      await stored();
      await Effect.runPromise(handle.storage.read((tx) => tx.findServerGraph(serverId(1))));
      await Effect.runPromise(handle.storage.read((tx) => tx.countProviders(TENANT_A)));
      await commit(() => Effect.succeed("nothing to commit"));
      expect(stamp()).toBe(before);
    });

    it("does not move on a transaction rolled back, whose write is then not seen", async () => {
      const current = await stored();
      const before = stamp();
      const failed = await Effect.runPromiseExit(
        handle.storage.transaction((tx) =>
          Effect.zipRight(
            tx.updateServer({ ...current, name: "rolled back", version: current.version + 1 }, current.version),
            Effect.fail("changed my mind" as const),
          ),
        ),
      );
      expect(Exit.isFailure(failed)).toBe(true);
      expect(stamp()).toBe(before);
      expect((await stored()).name).toBe(current.name);
    });
  });

describe("the embedded store's change stamp, a COMMIT without an answer", () => {
  let database: Awaited<ReturnType<typeof createEmbeddedDatabase>>;
  let handle: PostgresStorage & { readonly dispose: () => Promise<void> };

  beforeAll(async () => {
    database = await createEmbeddedDatabase();
    handle = await migratedStorage(database, { readCache: { listen: false }, queryTimeoutMs: 10_000 });
    await Effect.runPromise(handle.storage.transaction((tx) => tx.insertServer(server(1))));
  }, 180_000);
  afterAll(() => handle?.dispose());

  it("moves: the adapter cannot tell whether it committed", async () => {
    const current = (await Effect.runPromise(handle.storage.read((tx) => tx.findServer(serverId(1)))))!;
    const before = handle.storage.changeStamp?.();
    // The write is sent; the database's thread dies before the COMMIT that follows it.
    const lost = await Effect.runPromiseExit(
      handle.storage.transaction((tx) =>
        Effect.zipLeft(
          tx.updateServer({ ...current, name: "unknown", version: current.version + 1 }, current.version),
          Effect.promise(() => database.embedded.kill()),
        ),
      ),
    );
    expect(Exit.isFailure(lost) && Option.getOrUndefined(Cause.failureOption(lost.cause))).toBeInstanceOf(Unavailable);
    expect(handle.storage.changeStamp?.()).toBe(before! + 1);
  });
});
