import type { ReadTx, StorageTx } from "@mcpsm/domain/storage";
import {
  provider,
  providerId,
  server,
  serverId,
  TENANT_A,
  tool,
  toolId,
  variable,
  variableId,
} from "@mcpsm/storage-contract";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStorage } from "../src/index.js";
import { IDLE_MS, PointReadCache } from "../src/read-cache/point-read-cache.js";
import { commitHeard, migratedStorage, targets, untilServing } from "./support/targets.js";

// The point-read cache (`readCache`): what it answers without a statement, and what makes it read again.
// Counted at the driver, as statement-count.test.ts does. Entries would live ten minutes here, so every
// re-read below is caused by a change, never by age. (Two instances hearing each other's changes:
// apps/api/test/shared-database-caches.test.ts.)

describe("PointReadCache", () => {
  it("serves an entry only in the generation it was read in", () => {
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 600_000 });
    cache.store("k", 1, cache.current, performance.now());
    expect(cache.lookup("k")).toEqual({ found: true, value: 1 });
    cache.changed();
    expect(cache.lookup("k")).toEqual({ found: false });
  });

  it("does not keep a read that overlapped a change (it may predate it)", () => {
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 600_000 });
    const readIn = cache.current;
    cache.changed();
    cache.store("k", "old", readIn, performance.now());
    expect(cache.lookup("k")).toEqual({ found: false });
  });

  it("answers and keeps nothing while changes elsewhere could go unheard", () => {
    const cache = new PointReadCache({ trusted: false, maxAgeMs: 600_000 });
    cache.store("k", 1, cache.current, performance.now());
    expect(cache.lookup("k")).toEqual({ found: false });
    cache.setTrusted(true);
    cache.store("k", 1, cache.current, performance.now());
    expect(cache.lookup("k").found).toBe(true);
    cache.setTrusted(false);
    expect(cache.lookup("k")).toEqual({ found: false });
  });

  it("serves an entry no longer than maxAgeMs", () => {
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 1_000 });
    cache.store("k", 1, cache.current, performance.now() - 2_000);
    expect(cache.lookup("k")).toEqual({ found: false });
  });

  it("does not hold entries too old to serve until they are pushed out", () => {
    let now = 10_000;
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 1_000, now: () => now });
    cache.store("a", 1, cache.current, now);
    cache.store("b", 2, cache.current, now);
    now += 600;
    cache.store("c", 3, cache.current, now);
    expect(cache.size).toBe(3);
    // a and b are now too old; storing d drops them (least recently used first), not c.
    now += 600;
    cache.store("d", 4, cache.current, now);
    expect(cache.size).toBe(2);
    expect([cache.lookup("c").found, cache.lookup("d").found]).toEqual([true, true]);
    // c, used last but read 1,200 ms ago, is not served and goes when it is looked up.
    now += 600;
    expect(cache.lookup("c")).toEqual({ found: false });
    expect(cache.size).toBe(1);
    expect(cache.lookup("d")).toEqual({ found: true, value: 4 });
  });

  it("serves an entry of any age while a ping sent within maxAgeMs was heard back", () => {
    let now = 10_000;
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 1_000, now: () => now });
    cache.store("k", 1, cache.current, now);
    now += 5_000;
    cache.heard(now - 200);
    expect(cache.lookup("k")).toEqual({ found: true, value: 1 });
    // No echo for longer than maxAgeMs (a connection lost silently): the entry's own age decides again.
    now += 1_001;
    expect(cache.lookup("k")).toEqual({ found: false });
    // A change heard still ends the entry, echoes or not.
    cache.store("k", 2, cache.current, now);
    now += 5_000;
    cache.heard(now);
    expect(cache.lookup("k").found).toBe(true);
    cache.changed();
    expect(cache.lookup("k")).toEqual({ found: false });
  });

  it("offers its generation as the change stamp only while echoes vouch for it", () => {
    let now = 10_000;
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 1_000, now: () => now });
    // No echo yet: entries are served by age alone, which a stamp cannot say.
    expect(cache.stamp()).toBeUndefined();
    cache.heard(now);
    const first = cache.stamp();
    expect(first).toBe(cache.current);
    now += 900;
    expect(cache.stamp()).toBe(first);
    cache.changed();
    expect(cache.stamp()).not.toBe(first);
    // No echo for longer than maxAgeMs, or the connection lost: no stamp.
    now += 200;
    expect(cache.stamp()).toBeUndefined();
    cache.heard(now);
    expect(cache.stamp()).toBe(cache.current);
    cache.setTrusted(false);
    cache.heard(now);
    expect(cache.stamp()).toBeUndefined();
  });

  it("a sole writer's cache vouches for itself: entries of any age served, its stamp offered at once", () => {
    let now = 10_000;
    // The embedded database's: every change is one of its instance's commits (`changed` as each returns).
    const cache = new PointReadCache({ trusted: false, soleWriter: true, maxAgeMs: 1_000, now: () => now });
    expect(cache.serving).toBe(true);
    const first = cache.stamp();
    expect(first).toBe(cache.current);
    cache.store("k", 1, cache.current, now);
    now += 10_000;
    expect(cache.lookup("k")).toEqual({ found: true, value: 1 });
    expect(cache.stamp()).toBe(first);
    cache.changed();
    expect(cache.stamp()).toBe(cache.current);
    expect(cache.stamp()).not.toBe(first);
    expect(cache.lookup("k")).toEqual({ found: false });
    // Idle entries still go: used IDLE_MS + 1 ago, dropped when the next is stored.
    cache.store("a", 1, cache.current, now);
    now += IDLE_MS + 1;
    cache.store("b", 2, cache.current, now);
    expect(cache.size).toBe(1);
    expect(cache.lookup("b").found).toBe(true);
  });

  it("does not take an echo of a former connection, or one heard while untrusted, as proof", () => {
    let now = 10_000;
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 1_000, now: () => now });
    cache.heard(now);
    cache.setTrusted(false);
    cache.heard(now);
    cache.setTrusted(true);
    cache.store("k", 1, cache.current, now);
    now += 2_000;
    expect(cache.lookup("k")).toEqual({ found: false });
    expect(cache.echoes).toBe(1);
  });

  it("while echoes vouch for it, keeps the entries used in the last IDLE_MS and drops idle ones", () => {
    let now = 10_000;
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 1_000, now: () => now });
    cache.store("a", 1, cache.current, now);
    cache.store("b", 2, cache.current, now);
    now += IDLE_MS / 2;
    cache.heard(now);
    expect(cache.lookup("a").found).toBe(true);
    now += IDLE_MS / 2 + 1;
    cache.heard(now);
    cache.store("c", 3, cache.current, now);
    // b was last used IDLE_MS + 1 ago: dropped; a, used since, stays.
    expect(cache.size).toBe(2);
    expect([cache.lookup("a").found, cache.lookup("c").found]).toEqual([true, true]);
  });

  it("keeps at most maxEntries, least recently used out", () => {
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 600_000, maxEntries: 2 });
    for (const key of ["a", "b"]) cache.store(key, key, cache.current, performance.now());
    cache.lookup("a");
    cache.store("c", "c", cache.current, performance.now());
    expect([cache.lookup("a").found, cache.lookup("b").found, cache.lookup("c").found]).toEqual([true, false, true]);
  });

  it("counts each entry by its weight: a heavy one pushes several light ones out, and stays alone if need be", () => {
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 600_000, maxEntries: 4 });
    for (const key of ["a", "b", "c", "d"]) cache.store(key, key, cache.current, performance.now());
    cache.store("graph", "g", cache.current, performance.now(), 3);
    expect([..."abcd"].map((key) => cache.lookup(key).found)).toEqual([false, false, false, true]);
    expect(cache.lookup("graph").found).toBe(true);
    // Stored again lighter, its former weight is given back.
    cache.store("graph", "g", cache.current, performance.now(), 1);
    cache.store("e", "e", cache.current, performance.now());
    cache.store("f", "f", cache.current, performance.now());
    expect(cache.size).toBe(4);
    cache.store("huge", "h", cache.current, performance.now(), 10);
    expect(cache.size).toBe(1);
    expect(cache.lookup("huge").found).toBe(true);
  });

  it("shares a row of the current generation between readers only while its content is the same", () => {
    const cache = new PointReadCache({ trusted: true, maxAgeMs: 600_000 });
    const first = tool(1, providerId(1));
    expect(cache.shared("tool", first, cache.current)).toBe(first);
    // An equal row read later is answered with the one already held; one of another kind is not.
    expect(cache.shared("tool", structuredClone(first), cache.current)).toBe(first);
    const other = structuredClone(first);
    expect(cache.shared("prompt", other, cache.current)).toBe(other);
    // Other content under the same id (read after a change the cache has not heard yet): never the older row.
    const edited = { ...structuredClone(first), description: "edited" };
    expect(cache.shared("tool", edited, cache.current)).toBe(edited);
    expect(cache.shared("tool", structuredClone(edited), cache.current)).toBe(edited);
    // A read that overlapped a change shares nothing, and a change starts over.
    const stale = cache.current;
    cache.changed();
    const again = structuredClone(edited);
    expect(cache.shared("tool", again, stale)).toBe(again);
    const fresh = structuredClone(edited);
    expect(cache.shared("tool", fresh, cache.current)).toBe(fresh);
    // Untrusted, nothing is shared.
    cache.setTrusted(false);
    const unheard = structuredClone(edited);
    expect(cache.shared("tool", unheard, cache.current)).toBe(unheard);
  });
});

for (const target of targets)
  describe(`point-read cache of the adapter (${target.name})`, () => {
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
    let counting = false;
    const sent: Array<string> = [];

    beforeAll(async () => {
      handle = await migratedStorage(await target.create(), {
        // The embedded database has one client; a server is listened to.
        readCache: { maxAgeMs: 600_000, listen: target.name !== "pglite" },
        onStatement: (sql) => {
          if (counting) sent.push(sql);
        },
      });
      await untilServing(handle);
      await commit((tx) => tx.insertServer(server(1)));
    });
    afterAll(() => handle?.dispose());

    /** Runs `work` with `read` and answers its result and how many statements it sent. */
    const read = async <A>(work: (tx: ReadTx) => Effect.Effect<A>) => {
      sent.length = 0;
      counting = true;
      try {
        const result = await Effect.runPromise(handle.storage.read(work));
        return { result, statements: sent.length };
      } finally {
        counting = false;
      }
    };

    const commit = <A>(work: (tx: StorageTx) => Effect.Effect<A, unknown>) => commitHeard(handle, target.name, work);

    it("the graphs of servers that chose the same tools hold one copy of their rows, until a tool changes", async () => {
      await commit((tx) =>
        Effect.gen(function* () {
          yield* tx.insertProvider(provider(7));
          for (const n of [71, 72]) yield* tx.insertTool(tool(n, providerId(7)));
          for (const n of [71, 72])
            yield* tx.insertServer(
              server(n, { providers: [{ providerId: providerId(7), toolIds: [toolId(71), toolId(72)] }] }),
            );
        }),
      );
      const graphOf = async (n: number) => {
        const graph = (await read((tx) => tx.findServerGraph(serverId(n)))).result;
        if (graph === undefined) throw new Error(`no graph of server ${n}`);
        return graph;
      };
      const [a, b] = [await graphOf(71), await graphOf(72)];
      expect(a).not.toBe(b);
      expect(b.providers[0]).toBe(a.providers[0]);
      expect(b.tools.map((row) => row.id)).toEqual([toolId(71), toolId(72)]);
      for (const [i, row] of b.tools.entries()) expect(row).toBe(a.tools[i]);
      // What a reader gets is what the cache keeps (cachedServerGraph peeks at the same object).
      expect(handle.storage.cachedServerGraph?.(serverId(72))).toBe(b);

      const edited = { ...tool(71, providerId(7)), description: "edited", updatedAt: new Date(Date.UTC(2024, 1, 1)) };
      await commit((tx) => tx.updateTool(edited));
      const [c, d] = [await graphOf(71), await graphOf(72)];
      const editedOf = (graph: typeof c) => graph.tools.find((row) => row.id === toolId(71));
      expect(editedOf(c)?.description).toBe("edited");
      expect(editedOf(c)).not.toBe(editedOf(a));
      expect(editedOf(d)).toBe(editedOf(c));
    });

    it("a second read of a server, its graph, sends nothing; a committed change makes it read again", async () => {
      expect((await read((tx) => tx.findServerGraph(serverId(1)))).statements).toBe(1);
      expect((await read((tx) => tx.findServerGraph(serverId(1)))).statements).toBe(0);
      expect((await read((tx) => tx.findServer(serverId(1)))).statements).toBe(1);
      expect((await read((tx) => tx.findServer(serverId(1)))).statements).toBe(0);

      const renamed = { ...server(1), name: "renamed", version: 2 };
      expect(await commit((tx) => tx.updateServer(renamed, 1))).toBe(true);
      const after = await read((tx) => tx.findServerGraph(serverId(1)));
      expect(after.statements).toBe(1);
      expect(after.result?.server.name).toBe("renamed");
      expect((await read((tx) => tx.findServer(serverId(1)))).result?.name).toBe("renamed");
    });

    it("a write that rolls back leaves the cache as it was; the same write committed drops it", async () => {
      const cache = handle.readCache!;
      await read((tx) => tx.findServer(serverId(1)));
      expect((await read((tx) => tx.findServer(serverId(1)))).statements).toBe(0);
      const stored = (await read((tx) => tx.findServer(serverId(1)))).result!;
      const renamed = { ...stored, name: "rolled-back", version: stored.version + 1 };
      const generation = cache.current;
      const failed = await Effect.runPromiseExit(
        handle.storage.transaction((tx) =>
          Effect.zipRight(tx.updateServer(renamed, stored.version), Effect.fail("changed my mind" as const)),
        ),
      );
      expect(failed._tag).toBe("Failure");
      expect(cache.current).toBe(generation);
      const kept = await read((tx) => tx.findServer(serverId(1)));
      expect(kept.statements).toBe(0);
      expect(kept.result?.name).toBe(stored.name);

      expect(await commit((tx) => tx.updateServer(renamed, stored.version))).toBe(true);
      const reread = await read((tx) => tx.findServer(serverId(1)));
      expect(reread.statements).toBe(1);
      expect(reread.result?.name).toBe("rolled-back");
      await commit((tx) => tx.updateServer({ ...stored, version: stored.version + 2 }, stored.version + 1));
    });

    it("the variables a tool's headers name are read once until a variable changes", async () => {
      await commit((tx) => tx.insertVariable(variable(1, { type: "SECRET", value: "cipher-1" })));
      const names = ["VAR_1", "VAR_404"];
      const first = await read((tx) => tx.findVariablesByName(TENANT_A, names));
      expect(first.statements).toBe(1);
      expect(first.result.map((row) => row.value)).toEqual(["cipher-1"]);
      expect((await read((tx) => tx.findVariablesByName(TENANT_A, names))).statements).toBe(0);
      // Another set of names, or another tenant, is another read.
      expect((await read((tx) => tx.findVariablesByName(TENANT_A, ["VAR_1"]))).statements).toBe(1);
      expect((await read((tx) => tx.findVariablesByName("tenant-b", names))).statements).toBe(1);

      await commit((tx) => tx.updateVariable(variable(1, { type: "SECRET", value: "cipher-2" })));
      const after = await read((tx) => tx.findVariablesByName(TENANT_A, names));
      expect(after.statements).toBe(1);
      expect(after.result.map((row) => row.value)).toEqual(["cipher-2"]);
    });

    it("a caller's own values are read once until one of them changes", async () => {
      await commit((tx) => tx.insertVariable(variable(2, { type: "SECRET", value: "", perCaller: true })));
      const own = (principal: string) => read((tx) => tx.findCallerValues([variableId(2)], principal));
      expect((await own("oauth:alice")).statements).toBe(1);
      const none = await own("oauth:alice");
      expect(none.statements).toBe(0);
      expect(none.result).toEqual([]);
      // Another caller is another read, and never the first caller's answer.
      expect((await own("oauth:bob")).statements).toBe(1);

      const value = {
        id: "cval0000001",
        tenant: TENANT_A,
        variableId: variableId(2),
        principal: "oauth:alice",
        serverTokenId: null,
        valueCipher: "v1.k.alice",
        createdAt: new Date(0),
        updatedAt: new Date(0),
      };
      await commit((tx) => tx.putCallerValue(value));
      const after = await own("oauth:alice");
      expect(after.statements).toBe(1);
      expect(after.result.map((row) => row.valueCipher)).toEqual(["v1.k.alice"]);
      expect((await own("oauth:alice")).statements).toBe(0);
      expect((await own("oauth:bob")).result).toEqual([]);
    });

    it("the port's change stamp: at once on the embedded database (its sole writer), else once echoes vouch; moved by a commit", async () => {
      const stamp = handle.storage.changeStamp!;
      if (target.name === "pglite") expect(stamp()).toBe(handle.readCache!.current);
      const deadline = Date.now() + 30_000;
      while (stamp() === undefined) {
        if (Date.now() > deadline) throw new Error("no echo heard");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const before = stamp();
      await read((tx) => tx.findServer(serverId(1)));
      expect(stamp()).toBe(before);
      await Effect.runPromise(handle.storage.transaction((tx) => tx.findServer(serverId(1))));
      expect(stamp()).not.toBe(before);
    });

    it("concurrent misses of one record share one statement", async () => {
      await commit((tx) => tx.findServer(serverId(1)));
      const { result, statements } = await read((tx) =>
        Effect.all(
          Array.from({ length: 8 }, () => tx.findServer(serverId(1))),
          { concurrency: "unbounded" },
        ),
      );
      expect(result.map((row) => row?.name)).toEqual(Array(8).fill("renamed"));
      expect(statements).toBe(1);
    });

    it("a record that does not exist is read every time (made-up ids cannot fill the cache)", async () => {
      expect((await read((tx) => tx.findServer(serverId(99)))).statements).toBe(1);
      expect((await read((tx) => tx.findServer(serverId(99)))).statements).toBe(1);
    });

    it("inside a transaction nothing is served from the cache", async () => {
      await read((tx) => tx.findServer(serverId(1)));
      sent.length = 0;
      counting = true;
      try {
        await Effect.runPromise(handle.storage.transaction((tx) => tx.findServer(serverId(1))));
      } finally {
        counting = false;
      }
      // The read goes to the database (with BEGIN in its round trip).
      expect(sent.filter((sql) => /^(begin;\s*)?select /i.test(sql.trim()))).toHaveLength(1);
    });
  });

for (const target of targets.filter((t) => t.name !== "pglite"))
  describe(`the change listener's echoed pings (${target.name})`, () => {
    // The cache's clock runs `offset` ahead of real time, so an entry can be made old without waiting.
    let offset = 0;
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
    let counting = false;
    const sent: Array<string> = [];

    beforeAll(async () => {
      handle = await migratedStorage(await target.create(), {
        readCache: { maxAgeMs: 1_000, now: () => performance.now() + offset },
        onStatement: (sql) => {
          if (counting) sent.push(sql);
        },
      });
      await untilServing(handle);
      await Effect.runPromise(handle.storage.transaction((tx) => tx.insertServer(server(1))));
    });
    afterAll(() => handle?.dispose());

    const statementsOfARead = async () => {
      sent.length = 0;
      counting = true;
      try {
        await Effect.runPromise(handle.storage.read((tx) => tx.findServer(serverId(1))));
        return sent.length;
      } finally {
        counting = false;
      }
    };

    it("serves a server read long ago without a statement once a ping sent since was heard back", async () => {
      const cache = handle.readCache as PointReadCache;
      // Once the insert's own notification has been heard, a read is served from the cache.
      await expect.poll(statementsOfARead, { timeout: 30_000 }).toBe(0);
      // The entry is now 10 s old, ten times maxAgeMs. Two echoes later, a ping sent after the jump was heard.
      offset += 10_000;
      const echoes = cache.echoes;
      await expect.poll(() => cache.echoes, { timeout: 30_000 }).toBeGreaterThanOrEqual(echoes + 2);
      expect(await statementsOfARead()).toBe(0);
      // A change still ends it at once.
      await Effect.runPromise(
        handle.storage.transaction((tx) => tx.updateServer({ ...server(1), name: "renamed" }, 1)),
      );
      expect(await statementsOfARead()).toBeGreaterThan(0);
    });
  });
