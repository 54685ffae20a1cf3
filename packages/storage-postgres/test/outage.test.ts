import { Unavailable } from "@mcpsm/domain/errors";
import { provider, TENANT_A } from "@mcpsm/storage-contract";
import { Cause, Deferred, Effect, Exit, Fiber } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePostgresStorage, migrate, type PostgresStorage } from "../src/index.js";
import { type OutageProxy, startOutageProxy } from "../src/testing/index.js";
import { targets, type TestDatabase } from "./support/targets.js";

/** The typed failure of `exit`, if it failed with one (and not with a defect or an interruption). */
const failureOf = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit)
    ? Cause.failureOption(exit.cause).pipe((o) => (o._tag === "Some" ? o.value : undefined))
    : undefined;

// Connection failures surface as the domain's Unavailable (HTTP 503), never as a defect, and the storage
// recovers by itself once the database is back. The database sits behind a TCP proxy the test takes down.
for (const target of targets)
  describe(`database outages (${target.name})`, () => {
    let database: TestDatabase;
    let proxy: OutageProxy;
    let handle: PostgresStorage;
    const p1 = provider(1);

    beforeAll(async () => {
      database = await target.create();
      await migrate(database.options);
      proxy = await startOutageProxy(database.options.url);
      // One pooled connection, and short waits for it and for answers, so that the timeout cases are quick.
      handle = await makePostgresStorage({
        ...database.options,
        url: proxy.url,
        // Over TCP through the proxy, also for the embedded database (its adapter's own stream skips TCP).
        stream: undefined,
        poolSize: 1,
        connectTimeoutMs: 1_000,
        queryTimeoutMs: 1_000,
      });
      await Effect.runPromise(handle.storage.transaction((tx) => tx.insertProvider(p1)));
    });
    afterAll(async () => {
      await handle?.close();
      await proxy?.down();
      await database?.dispose();
    });

    it("while the database is unreachable, requests fail with Unavailable; once it is back, they succeed", async () => {
      await proxy.down();
      const read = await Effect.runPromiseExit(handle.storage.read((tx) => tx.findProvider(p1.id)));
      const write = await Effect.runPromiseExit(handle.storage.transaction((tx) => tx.insertProvider(provider(2))));
      const ping = await Effect.runPromiseExit(handle.ping);
      for (const exit of [read, write, ping] as Array<Exit.Exit<unknown, unknown>>)
        expect(failureOf(exit)).toBeInstanceOf(Unavailable);

      await proxy.up();
      expect(await Effect.runPromise(handle.storage.read((tx) => tx.findProvider(p1.id)))).toEqual(p1);
      await Effect.runPromise(handle.storage.transaction((tx) => tx.insertProvider(provider(2))));
      expect(await Effect.runPromise(handle.storage.read((tx) => tx.countProviders(TENANT_A)))).toBe(2);
      await Effect.runPromise(handle.ping);
    });

    it("a connection lost inside a transaction fails it with Unavailable and leaves nothing of it", async () => {
      const lost = await Effect.runPromiseExit(
        handle.storage.transaction((tx) =>
          Effect.gen(function* () {
            yield* tx.insertProvider(provider(3));
            yield* Effect.sync(() => proxy.cut());
            return yield* tx.findProvider(provider(3).id);
          }),
        ),
      );
      expect(failureOf(lost)).toBeInstanceOf(Unavailable);
      expect(await Effect.runPromise(handle.storage.read((tx) => tx.findProvider(provider(3).id)))).toBeUndefined();
    });

    it("while the database stops answering (connections open, nothing carried), requests fail with Unavailable in bounded time; then recover", async () => {
      // The pooled connection is open and idle when the stall begins: the next statement on it gets no answer.
      await Effect.runPromise(handle.ping);
      proxy.stall();
      const started = Date.now();
      const read = await Effect.runPromiseExit(handle.storage.read((tx) => tx.findProvider(p1.id)));
      const write = await Effect.runPromiseExit(handle.storage.transaction((tx) => tx.insertProvider(provider(4))));
      const ping = await Effect.runPromiseExit(handle.ping);
      for (const exit of [read, write, ping] as Array<Exit.Exit<unknown, unknown>>)
        expect(failureOf(exit)).toBeInstanceOf(Unavailable);
      // Each waited for one statement (queryTimeoutMs) or one connection (connectTimeoutMs), about 1 s: a
      // bound with room for a loaded machine, where without the query timeout they would wait for ever.
      expect(Date.now() - started).toBeLessThan(10_000);

      proxy.heal();
      expect(await Effect.runPromise(handle.storage.read((tx) => tx.findProvider(p1.id)))).toEqual(p1);
      expect(await Effect.runPromise(handle.storage.read((tx) => tx.findProvider(provider(4).id)))).toBeUndefined();
      await Effect.runPromise(handle.ping);
    });

    it("a request that waits too long for a pooled connection fails with Unavailable", async () => {
      // The only connection is held by a transaction until the test lets it go; a read that cannot get it
      // in time (connectTimeoutMs) gives up.
      const holding = Effect.runSync(Deferred.make<void>());
      const release = Effect.runSync(Deferred.make<void>());
      const slow = Effect.runFork(
        handle.storage.transaction((tx) =>
          tx
            .countProviders(TENANT_A)
            .pipe(Effect.zipRight(Deferred.succeed(holding, undefined)), Effect.zipRight(Deferred.await(release))),
        ),
      );
      await Effect.runPromise(Deferred.await(holding));
      const starved = await Effect.runPromiseExit(handle.storage.read((tx) => tx.countProviders(TENANT_A)));
      expect(failureOf(starved)).toBeInstanceOf(Unavailable);
      await Effect.runPromise(Deferred.succeed(release, undefined));
      await Effect.runPromise(Fiber.join(slow));
      expect(await Effect.runPromise(handle.storage.read((tx) => tx.countProviders(TENANT_A)))).toBe(2);
    });
  });
