import { randomBytes } from "node:crypto";
import { aesGcmCipher } from "@mcpsm/domain";
import { testActor } from "@mcpsm/domain/testing";
import { createGitConnection, createServer, domainServicesLayer, updateServer } from "@mcpsm/domain/use-cases";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { Effect, ManagedRuntime } from "effect";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitSyncWorker } from "../src/index.js";
import { type GitHttpServer, startGitHttpServer } from "../src/testing/index.js";

// The worker over the domain's outbox: a pending push survives until a worker takes it; a lease keeps a
// second worker off an entry another one holds (until the lease runs out); two workers never push one change
// twice. runOnce drives the worker: no timers, no sleeping.

const credentials = { username: "bot", password: "worker-test-token-123" };
let git: GitHttpServer;
const dispatcher = new Agent();
beforeAll(async () => {
  git = await startGitHttpServer(() => credentials);
});
afterAll(async () => {
  await git.close();
  await dispatcher.close();
});

const setup = async (repo: string) => {
  const memory = makeMemoryStorage();
  // Counts the transactions opened: on PostgreSQL each committed one empties every instance's read cache.
  const transactions = { count: 0 };
  const storage: typeof memory = {
    ...memory,
    transaction: (work) =>
      Effect.suspend(() => {
        transactions.count++;
        return memory.transaction(work);
      }),
  };
  const cipher = aesGcmCipher(new Uint8Array(randomBytes(32)));
  const runtime = ManagedRuntime.make(domainServicesLayer({ storage, cipher }));
  const alice = testActor("alice");
  await git.createRepository(repo);
  const connection = await runtime.runPromise(
    createGitConnection(alice, {
      gitConnection: {
        name: "local",
        kind: "GENERIC",
        baseURL: git.baseURL,
        username: "bot",
        token: credentials.password,
      },
    }),
  );
  const server = await runtime.runPromise(
    createServer(alice, { server: { name: "weather", gitConnectionID: connection.id, gitRepoFullName: repo } }),
  );
  const worker = (owner: string, now?: () => Date) =>
    startGitSyncWorker({
      storage,
      cipher,
      dispatcher,
      owner,
      settings: { debounceMs: 1, pollMs: 3_600_000 },
      ...(now === undefined ? {} : { now }),
    });
  const sync = () => Effect.runPromise(storage.read((tx) => tx.findGitSync(server.id)));
  return { storage, runtime, alice, server, worker, sync, transactions };
};

const later = (ms: number) => () => new Date(Date.now() + ms);

describe("the git sync worker", () => {
  it("pushes a change noted before any worker ran (the outbox is the store's), once", async () => {
    const { worker, sync, runtime } = await setup("team/restart");
    expect(await sync()).toMatchObject({ state: "PENDING", changeSeq: 1 });
    const a = worker("a", later(10));
    const b = worker("b", later(10));
    const handled = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(handled.sort()).toEqual([0, 1]);
    expect(await git.log("team/restart")).toHaveLength(1);
    expect(await sync()).toMatchObject({ state: "SYNCED", pushedSeq: 1, leaseOwner: null });
    expect(await a.runOnce()).toBe(0);
    await Promise.all([a.stop(), b.stop(), runtime.dispose()]);
  });

  it("an idle poll opens no transaction; a due entry is claimed and pushed", async () => {
    const { worker, sync, runtime, transactions } = await setup("team/idle");
    const early = worker("a", later(-60_000)); // before the change: nothing due yet
    transactions.count = 0;
    expect(await early.runOnce()).toBe(0);
    expect(transactions.count).toBe(0);
    expect(await sync()).toMatchObject({ state: "PENDING", leaseOwner: null });
    const a = worker("a", later(10));
    expect(await a.runOnce()).toBe(1);
    expect(transactions.count).toBe(2); // the claim and the settle
    expect(await git.log("team/idle")).toHaveLength(1);
    transactions.count = 0;
    expect(await a.runOnce()).toBe(0);
    expect(transactions.count).toBe(0);
    await Promise.all([early.stop(), a.stop(), runtime.dispose()]);
  });

  it("an entry leased by a worker that died is taken over once the lease ran out", async () => {
    const { storage, worker, sync, runtime, alice, server } = await setup("team/lease");
    await Effect.runPromise(
      storage.transaction((tx) =>
        tx.claimGitSyncs({
          owner: "dead",
          now: new Date(Date.now() + 10),
          leaseUntil: new Date(Date.now() + 60_000),
          quietSince: new Date(Date.now() + 10),
          pendingBefore: new Date(0),
          limit: 1,
        }),
      ),
    );
    const b = worker("b", later(10));
    expect(await b.runOnce()).toBe(0);
    expect(await git.log("team/lease")).toEqual([]);
    await runtime.runPromise(updateServer(alice, { serverId: server.id, server: { description: "again" } }));
    // Still leased: a change does not take the entry from its holder.
    expect(await b.runOnce()).toBe(0);
    const c = worker("c", later(61_000));
    expect(await c.runOnce()).toBe(1);
    expect(await sync()).toMatchObject({ state: "SYNCED", changeSeq: 2, pushedSeq: 2 });
    const [commit] = await git.log("team/lease");
    expect(commit?.subject).toBe("weather v2: export the server");
    await Promise.all([b.stop(), c.stop(), runtime.dispose()]);
  });
});
