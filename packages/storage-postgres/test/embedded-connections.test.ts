import type pg from "pg";
import { describe, expect, it } from "vitest";
import { useEmbeddedDatabase } from "./support/embedded-database.js";

// The embedded database's connections: the adapter's in-process stream and TCP clients share one PGlite
// session, one connection at a time (src/embedded.ts, src/embedded-stream.ts).

describe("embedded connections", () => {
  const { inProcess, overTcp } = useEmbeddedDatabase("mcpsm-pglite-connections-");

  it("runs simple and parameterised statements in process, several messages at once", async () => {
    const client = inProcess();
    await client.connect();
    try {
      // pg answers a simple query of several statements with one result each.
      const results = (await client.query("select 1 as a; select 2 as b")) as unknown as Array<pg.QueryResult>;
      expect(results.map((r) => r.rows)).toEqual([[{ a: 1 }], [{ b: 2 }]]);
      expect((await client.query("select $1::int + 1 as n", [41])).rows).toEqual([{ n: 42 }]);
      // An error in an extended query answers that query only; the connection goes on.
      await expect(client.query("select 1 / $1::int", [0])).rejects.toThrow("division by zero");
      expect((await client.query("select $1::text as t", ["after"])).rows).toEqual([{ t: "after" }]);
    } finally {
      await client.end();
    }
  });

  it("a named statement can be prepared again by the next connection, in process or over TCP", async () => {
    for (const connect of [inProcess, inProcess, overTcp, overTcp, inProcess]) {
      const client = connect();
      await client.connect();
      try {
        const result = await client.query({ name: "again", text: "select $1::int as v", values: [7] });
        expect(result.rows).toEqual([{ v: 7 }]);
      } finally {
        await client.end();
      }
    }
  });

  it("rolls back what a closed in-process connection left open before the next one gets its turn", async () => {
    const setup = inProcess();
    await setup.connect();
    await setup.query("create table if not exists left_open (n int)");
    await setup.end();
    const first = inProcess();
    await first.connect();
    await first.query("begin");
    await first.query("insert into left_open values (1)");
    await first.end();
    const next = overTcp();
    await next.connect();
    try {
      expect((await next.query("select count(*)::int as n from left_open")).rows).toEqual([{ n: 0 }]);
    } finally {
      await next.end();
    }
  });

  it("a TCP client waits while the in-process connection is open and gets in once it closes", async () => {
    const holder = inProcess();
    await holder.connect();
    const waiting = overTcp();
    let admitted = false;
    const connected = waiting.connect().then(() => {
      admitted = true;
    });
    expect((await holder.query("select 'held' as s")).rows).toEqual([{ s: "held" }]);
    expect(admitted).toBe(false);
    await holder.end();
    await connected;
    try {
      expect((await waiting.query("select 'next' as s")).rows).toEqual([{ s: "next" }]);
    } finally {
      await waiting.end();
    }
  });
});
