import { Unavailable } from "@mcpsm/domain/errors";
import { TENANT_A } from "@mcpsm/storage-contract";
import { Cause, Effect, Exit } from "effect";
import { describe, expect, it } from "vitest";
import { makePostgresStorage } from "../src/index.js";
import { useEmbeddedDatabase } from "./support/embedded-database.js";

// The embedded database on its own thread (src/embedded-thread.ts): transactions at its single session stay one
// at a time (the in-process connections share the session between them), and a thread that dies makes the
// store answer Unavailable instead of hanging.

/** The typed failure of `exit`, if it failed with one (and not with a defect or an interruption). */
const failureOf = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit)
    ? Cause.failureOption(exit.cause).pipe((o) => (o._tag === "Some" ? o.value : undefined))
    : undefined;

describe("embedded database thread", () => {
  const { embedded, inProcess, overTcp } = useEmbeddedDatabase("mcpsm-pglite-thread-");

  it("two transactions never interleave: each runs alone, in process or over TCP", async () => {
    const setup = inProcess();
    await setup.connect();
    await setup.query("create table turns (seq serial primary key, client int not null, step int not null)");
    await setup.end();
    // Every client connects at once; each sends its transaction's statements one round trip after another,
    // so two transactions inside at the same time would alternate their rows.
    const clients = [inProcess, overTcp, inProcess, inProcess, overTcp, inProcess];
    await Promise.all(
      clients.map(async (connect, client) => {
        const connection = connect();
        await connection.connect();
        try {
          await connection.query("begin");
          for (let step = 0; step < 4; step++)
            await connection.query("insert into turns (client, step) values ($1, $2)", [client, step]);
          await connection.query("commit");
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

  it("in-process connections share the session between transactions; one's transaction holds the others", async () => {
    const holder = inProcess();
    const other = inProcess();
    await holder.connect();
    // The second connection gets in while the first is open (it would wait for it to close over TCP).
    await other.connect();
    try {
      await holder.query("create table shared_log (seq serial primary key, who text not null)");
      expect((await other.query("select count(*)::int as n from shared_log")).rows).toEqual([{ n: 0 }]);
      await holder.query("begin");
      await holder.query("insert into shared_log (who) values ('h1')");
      // Sent while the holder's transaction is open: it runs once that transaction has ended, never inside it.
      const waiting = other.query("insert into shared_log (who) values ('other')");
      await holder.query("insert into shared_log (who) values ('h2')");
      await holder.query("commit");
      await waiting;
      const rows = (await other.query("select who from shared_log order by seq")).rows;
      expect(rows.map((row) => row.who)).toEqual(["h1", "h2", "other"]);
    } finally {
      await other.end();
      await holder.end();
    }
  });

  it("a connection that closes rolls back its own transaction only", async () => {
    const owner = inProcess();
    const bystander = inProcess();
    await owner.connect();
    await bystander.connect();
    try {
      await owner.query("create table own_rollback (n int)");
      await owner.query("begin");
      await owner.query("insert into own_rollback values (1)");
      await bystander.end();
      await owner.query("insert into own_rollback values (2)");
      await owner.query("commit");
      expect((await owner.query("select count(*)::int as n from own_rollback")).rows).toEqual([{ n: 2 }]);
      const leaver = inProcess();
      await leaver.connect();
      await leaver.query("begin");
      await leaver.query("insert into own_rollback values (3)");
      await leaver.end();
      expect((await owner.query("select count(*)::int as n from own_rollback")).rows).toEqual([{ n: 2 }]);
    } finally {
      await owner.end();
    }
  });

  it("a named statement one in-process connection prepared is prepared by another without a clash", async () => {
    const clients = [inProcess(), inProcess(), inProcess()];
    for (const client of clients) await client.connect();
    try {
      const answers = await Promise.all(
        clients.map((client, n) => client.query({ name: "shared_named", text: "select $1::int as v", values: [n] })),
      );
      expect(answers.map((answer) => answer.rows)).toEqual([[{ v: 0 }], [{ v: 1 }], [{ v: 2 }]]);
      // And again, each now using what it counts as prepared.
      expect(
        (await clients[2]?.query({ name: "shared_named", text: "select $1::int as v", values: [9] }))?.rows,
      ).toEqual([{ v: 9 }]);
      const held = await clients[0]?.query("select count(*)::int as n from pg_prepared_statements where name = $1", [
        "shared_named",
      ]);
      expect(held?.rows).toEqual([{ n: 1 }]);
    } finally {
      for (const client of clients) await client.end();
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
