import { Unavailable } from "@mcpsm/domain/errors";
import { TENANT_A } from "@mcpsm/storage-contract";
import { Cause, Effect, Exit } from "effect";
import { describe, expect, it } from "vitest";
import { makePostgresStorage } from "../src/index.js";
import { useEmbeddedDatabase } from "./support/embedded-database.js";

// The embedded database on its own thread (src/embedded-thread.ts): turns at its single session stay one at
// a time, and a thread that dies makes the store answer Unavailable instead of hanging.

/** The typed failure of `exit`, if it failed with one (and not with a defect or an interruption). */
const failureOf = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit)
    ? Cause.failureOption(exit.cause).pipe((o) => (o._tag === "Some" ? o.value : undefined))
    : undefined;

describe("embedded database thread", () => {
  const { embedded, inProcess, overTcp } = useEmbeddedDatabase("mcpsm-pglite-thread-");

  it("two turns never interleave: each client's statements run together, in process or over TCP", async () => {
    const setup = inProcess();
    await setup.connect();
    await setup.query("create table turns (seq serial primary key, client int not null, step int not null)");
    await setup.end();
    // Every client asks for its turn at once; each sends its statements one round trip after another, so
    // two clients inside at the same time would alternate their rows.
    const clients = [inProcess, overTcp, inProcess, inProcess, overTcp, inProcess];
    await Promise.all(
      clients.map(async (connect, client) => {
        const connection = connect();
        await connection.connect();
        try {
          for (let step = 0; step < 4; step++)
            await connection.query("insert into turns (client, step) values ($1, $2)", [client, step]);
        } finally {
          await connection.end();
        }
      }),
    );
    const reader = inProcess();
    await reader.connect();
    try {
      const rows = (await reader.query("select client, step from turns order by seq")).rows as Array<{
        client: number;
        step: number;
      }>;
      expect(rows).toHaveLength(clients.length * 4);
      // Runs of one client's four steps in order, each client once.
      const runs = Array.from({ length: clients.length }, (_, n) => rows.slice(n * 4, n * 4 + 4));
      for (const run of runs) expect(run.map((r) => r.step)).toEqual([0, 1, 2, 3]);
      for (const run of runs) expect(new Set(run.map((r) => r.client)).size).toBe(1);
      expect(new Set(runs.map((run) => run[0]?.client)).size).toBe(clients.length);
    } finally {
      await reader.end();
    }
  });

  it("a database thread that dies makes the store answer Unavailable, promptly, and stop still resolves", async () => {
    const handle = await makePostgresStorage({
      ...embedded().storageOptions,
      connectTimeoutMs: 10_000,
      queryTimeoutMs: 10_000,
    });
    try {
      // A pooled connection is open and has been answered before the thread dies.
      await Effect.runPromise(handle.ping);
      await embedded().kill();
      const started = Date.now();
      const onPooled = await Effect.runPromiseExit(handle.ping);
      const onNew = await Effect.runPromiseExit(handle.storage.read((tx) => tx.countProviders(TENANT_A)));
      expect(failureOf(onPooled)).toBeInstanceOf(Unavailable);
      expect(failureOf(onNew)).toBeInstanceOf(Unavailable);
      // Well within the connect and query timeouts: the failure comes from the thread's end, not a timer.
      expect(Date.now() - started).toBeLessThan(5_000);
      await expect(inProcess().connect()).rejects.toThrow("the embedded database is gone");
    } finally {
      await handle.close();
    }
    await embedded().stop();
  });
});
