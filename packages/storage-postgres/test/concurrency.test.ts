import { ReferenceViolation, Storage, type StorageTx, UniqueViolation } from "@mcpsm/domain/storage";
import { ALL_SCOPES } from "@mcpsm/domain";
import { addServerTool } from "@mcpsm/domain/use-cases";
import { provider, server, TENANT_A, tool } from "@mcpsm/storage-contract";
import { Deferred, Effect, Either } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStorage } from "../src/index.js";
import { createServerDatabase, migratedStorage, serverUrl } from "./support/targets.js";

/** An effect that completes once `parties` fibers are waiting on it. */
const barrier = (parties: number) => {
  const open = Effect.runSync(Deferred.make<void>());
  let arrived = 0;
  return Effect.suspend(() => {
    arrived++;
    return arrived >= parties ? Deferred.succeed(open, undefined) : Effect.void;
  }).pipe(Effect.zipRight(Deferred.await(open)));
};

// Races between requests, on a real PostgreSQL server (the embedded one runs one transaction at a time,
// so nothing races there). The database itself decides: compare-and-set, unique and foreign keys.
describe.runIf(serverUrl !== undefined)("concurrency (postgresql server)", () => {
  let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
  const run = <A, E>(work: (tx: StorageTx) => Effect.Effect<A, E>) =>
    Effect.runPromise(handle.storage.transaction(work));

  beforeAll(async () => {
    handle = await migratedStorage(await createServerDatabase(), { poolSize: 24 });
  });
  afterAll(() => handle?.dispose());

  it("of 20 concurrent updateServer calls expecting the same version, exactly one applies", async () => {
    const p = provider(1);
    const tools = Array.from({ length: 20 }, (_, i) => tool(i + 1, p.id));
    const stored = server(1);
    await run((tx) =>
      Effect.gen(function* () {
        yield* tx.insertProvider(p);
        for (const t of tools) yield* tx.insertTool(t);
        yield* tx.insertServer(stored);
      }),
    );
    // Each writer links a different tool, so the links show whose write won.
    const write = (i: number) =>
      handle.storage.transaction((tx) =>
        Effect.zipRight(
          Effect.yieldNow(),
          tx.updateServer(
            {
              ...stored,
              version: 2,
              description: `writer ${i}`,
              providers: [{ providerId: p.id, toolIds: [tools[i]!.id] }],
            },
            1,
          ),
        ),
      );
    const applied = await Effect.runPromise(
      Effect.all(
        Array.from({ length: 20 }, (_, i) => write(i)),
        { concurrency: "unbounded" },
      ),
    );
    expect(applied.filter((a) => a)).toHaveLength(1);
    const winner = applied.indexOf(true);
    const after = await run((tx) => tx.findServer(stored.id));
    expect(after).toEqual({
      ...stored,
      version: 2,
      description: `writer ${winner}`,
      providers: [{ providerId: p.id, toolIds: [tools[winner]!.id] }],
    });
  });

  it("of 20 concurrent inserts of the same provider name, one succeeds and 19 fail with UniqueViolation", async () => {
    const insert = (i: number) =>
      handle.storage
        .transaction((tx) => Effect.zipRight(Effect.yieldNow(), tx.insertProvider(provider(100 + i, { name: "race" }))))
        .pipe(Effect.either);
    const results = await Effect.runPromise(
      Effect.all(
        Array.from({ length: 20 }, (_, i) => insert(i)),
        { concurrency: "unbounded" },
      ),
    );
    expect(results.filter(Either.isRight)).toHaveLength(1);
    const failures = results.filter(Either.isLeft).map((r) => r.left);
    expect(failures).toHaveLength(19);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(UniqueViolation);
      expect(failure).toMatchObject({ kind: "provider", name: "race" });
    }
    const page = await Effect.runPromise(
      handle.storage.read((tx) => tx.searchProviders({ viewerTenant: TENANT_A, nameContains: "race", limit: 50 })),
    );
    expect(page.matchCount).toBe(1);
  });

  it("a provider delete racing a server insert that references it: never both succeed", async () => {
    const rounds = 20;
    let deletes = 0;
    let inserts = 0;
    for (let round = 0; round < rounds; round++) {
      const p = provider(1000 + round, { name: `raced-${round}` });
      const t = tool(1000 + round, p.id);
      await run((tx) => Effect.zipRight(tx.insertProvider(p), tx.insertTool(t)));
      // Both sides first check, as the use cases do, and both see a world in which they may go ahead: the
      // checks of both are done before either writes. A side the adapter re-runs after a deadlock checks
      // again and, like the use cases, refuses when the other side has won meanwhile.
      const bothChecked = barrier(2);
      const refuse = (detail: string) => Effect.fail(new ReferenceViolation({ kind: "provider", detail }));
      const remove = handle.storage.transaction((tx) =>
        Effect.gen(function* () {
          if ((yield* tx.serversReferencing({ kind: "provider", id: p.id })).length > 0) return yield* refuse("in use");
          yield* bothChecked;
          yield* tx.deleteProvider(p.id);
        }),
      );
      const s = server(1000 + round, { providers: [{ providerId: p.id, toolIds: [t.id] }] });
      const link = handle.storage.transaction((tx) =>
        Effect.gen(function* () {
          if ((yield* tx.findProvider(p.id)) === undefined) return yield* refuse("gone");
          yield* bothChecked;
          yield* tx.insertServer(s);
        }),
      );
      const [removed, linked] = await Effect.runPromise(
        Effect.all([Effect.either(remove), Effect.either(link)], { concurrency: "unbounded" }),
      );
      // Exactly one wins; the loser is told by the database (a reference violation), never a defect.
      expect([Either.isRight(removed), Either.isRight(linked)].filter(Boolean)).toHaveLength(1);
      const loser = Either.isLeft(removed) ? removed.left : Either.isLeft(linked) ? linked.left : undefined;
      expect(loser).toBeInstanceOf(ReferenceViolation);
      const state = await run((tx) => Effect.all([tx.findProvider(p.id), tx.findServer(s.id)]));
      if (Either.isRight(removed)) {
        deletes++;
        expect(state).toEqual([undefined, undefined]);
      } else {
        inserts++;
        expect(state[0]).toEqual(p);
        expect(state[1]).toEqual(s);
      }
    }
    console.info(`[postgresql server] delete-vs-link race: ${deletes} deletes won, ${inserts} links won`);
    expect(deletes + inserts).toBe(rounds);
  });

  it("a tool deleted while the addServerTool use case adds it: 400 unknown tool, the memory store's answer (issue 10)", async () => {
    const p = provider(3001, { name: "raced-tool" });
    const t = tool(3001, p.id);
    const s = server(3001);
    await run((tx) =>
      Effect.gen(function* () {
        yield* tx.insertProvider(p);
        yield* tx.insertTool(t);
        yield* tx.insertServer(s);
      }),
    );
    // The use case reads the tool; before it writes the link, another transaction deletes the tool and
    // commits (deterministically: the delete runs inside the read's hook). The link's foreign key refuses.
    let deleted = false;
    const racing = Storage.of({
      ...handle.storage,
      transaction: (work) =>
        handle.storage.transaction((tx) =>
          work({
            ...tx,
            findTool: (id) =>
              Effect.tap(tx.findTool(id), () =>
                deleted
                  ? Effect.void
                  : Effect.promise(() => run((other) => other.deleteTool(t.id))).pipe(
                      Effect.tap(() => (deleted = true)),
                    ),
              ),
          }),
        ),
    });
    const actor = { tenant: TENANT_A, scopes: new Set(ALL_SCOPES) };
    const outcome = await Effect.runPromise(
      addServerTool(actor, { serverId: s.id, tool: { providerID: p.id, toolID: t.id } }).pipe(
        Effect.provideService(Storage, racing),
        Effect.either,
      ),
    );
    expect(deleted).toBe(true);
    expect(Either.isLeft(outcome) && outcome.left).toMatchObject({
      _tag: "InvalidArgument",
      errors: [{ path: "tool.toolID", message: `unknown tool '${t.id}' of provider '${p.id}'` }],
    });
    expect((await run((tx) => tx.findServer(s.id)))?.providers).toEqual([]);
  });

  it("a transaction chosen as deadlock victim is run again", async () => {
    const [a, b] = [provider(2001, { name: "dl-a" }), provider(2002, { name: "dl-b" })];
    await run((tx) => Effect.zipRight(tx.insertProvider(a), tx.insertProvider(b)));
    let attempts = 0;
    // Opposite lock orders: the first transaction updates a, then lets the second start, which updates b and
    // then waits on a lock the first holds (a, or the tenant's listing generation that both updates stamp).
    // Once the database shows it waiting, the first goes on to b: a cycle, and PostgreSQL aborts one of the
    // two (40P01). A rerun finds both signals given and goes straight through.
    const firstLocked = Effect.runSync(Deferred.make<void>());
    const secondWaiting = Effect.runSync(Deferred.make<void>());
    const update = (tx: StorageTx, target: typeof a, by: string) =>
      Effect.gen(function* () {
        const row = yield* tx.findProvider(target.id);
        return yield* tx.updateProvider({ ...row!, description: `by ${by}`, version: row!.version + 1 }, row!.version);
      });
    const lockBoth = (first: typeof a, second: typeof a, before: Effect.Effect<void>, between: Effect.Effect<void>) =>
      handle.storage.transaction((tx) =>
        Effect.gen(function* () {
          attempts++;
          yield* before;
          const firstApplied = yield* update(tx, first, first.name);
          yield* between;
          const secondApplied = yield* update(tx, second, first.name);
          return { [first.id]: firstApplied, [second.id]: secondApplied };
        }),
      );
    const waitingOnALock = async () => {
      const deadline = Date.now() + 30_000;
      const connection = handle.orm.em.getConnection();
      for (;;) {
        const [row] = await connection.execute<Array<{ n: string }>>(
          "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
        );
        if (Number(row?.n) > 0) return;
        if (Date.now() > deadline) throw new Error("the second transaction never waited on a lock");
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const first = lockBoth(
      a,
      b,
      Effect.void,
      Effect.zipRight(Deferred.succeed(firstLocked, undefined), Deferred.await(secondWaiting)),
    );
    const second = lockBoth(b, a, Deferred.await(firstLocked), Effect.void);
    const watcher = Effect.zipRight(
      Deferred.await(firstLocked),
      Effect.zipRight(Effect.promise(waitingOnALock), Deferred.succeed(secondWaiting, undefined)),
    );
    // Neither transaction fails: the victim's first attempt is rolled back and it runs again (a
    // compare-and-set in the rerun may still find the version moved, which the domain handles).
    const [results] = await Effect.runPromise(
      Effect.all([Effect.all([first, second], { concurrency: "unbounded" }), watcher], { concurrency: "unbounded" }),
    );
    expect(attempts).toBe(3);
    const applied = (id: string) => results.filter((r) => r[id] === true).length;
    const [storedA, storedB] = await run((tx) => Effect.all([tx.findProvider(a.id), tx.findProvider(b.id)]));
    expect([storedA?.version, storedB?.version]).toEqual([1 + applied(a.id), 1 + applied(b.id)]);
    expect(applied(a.id) + applied(b.id)).toBeGreaterThanOrEqual(3);
  });
});
