import type { ReadTx } from "@mcpsm/domain/storage";
import { AuditContext, createServer, quotasLayer, updateServer } from "@mcpsm/domain/use-cases";
import { provider, TENANT_A, tool } from "@mcpsm/storage-contract";
import { Effect, Exit, Layer } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStorage } from "../src/index.js";
import { migratedStorage, targets } from "./support/targets.js";

// The write of POST /servers (5 providers × 10 tools, explicit tool ids), run by the domain's use case on
// the adapter: the statements it sends (counted at the driver; a round trip of several statements is one
// send), and what it leaves behind. A regression test for the write's round trips (bench/server-create.mjs
// measures their cost).

const PROVIDERS = 5;
const TOOLS_PER_PROVIDER = 10;

for (const target of targets)
  describe(`POST /servers statements (${target.name})`, () => {
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
    let counting = false;
    const sent: Array<string> = [];
    const providers = Array.from({ length: PROVIDERS }, (_, i) => provider(1 + i));
    const tools = providers.map((p, i) =>
      Array.from({ length: TOOLS_PER_PROVIDER }, (_, j) => tool(100 + i * TOOLS_PER_PROVIDER + j, p.id)),
    );
    const links = providers.map((p, i) => ({ id: p.id, tools: (tools[i] ?? []).map((t) => ({ id: t.id })) }));
    const actor = { tenant: TENANT_A, scopes: new Set(["server:create"]), sub: "tester" };

    beforeAll(async () => {
      handle = await migratedStorage(await target.create(), {
        onStatement: (sql) => {
          if (counting) sent.push(sql);
        },
      });
      await Effect.runPromise(
        handle.storage.transaction((tx) =>
          Effect.gen(function* () {
            for (const p of providers) yield* tx.insertProvider(p);
            for (const t of tools.flat()) yield* tx.insertTool(t);
          }),
        ),
      );
    });
    afterAll(() => handle?.dispose());

    const layer = (serversPerTenant = 1_000) =>
      Layer.mergeAll(
        handle.layer,
        quotasLayer({ serversPerTenant }),
        Layer.succeed(AuditContext, {
          tenant: TENANT_A,
          sub: "tester",
          clientId: "",
          requestId: "request-1",
          operation: "createServer",
        }),
      );
    const create = async (name: string, serversPerTenant?: number, providers: typeof links = links) => {
      sent.length = 0;
      counting = true;
      try {
        const exit = await Effect.runPromiseExit(
          createServer(actor, { server: { name, providers } }).pipe(Effect.provide(layer(serversPerTenant))),
        );
        return { exit, statements: [...sent] };
      } finally {
        counting = false;
      }
    };
    const read = <A>(work: (tx: ReadTx) => Effect.Effect<A>) => Effect.runPromise(handle.storage.read(work));
    const auditEvents = () =>
      read((tx) => tx.searchAuditEvents({ tenant: TENANT_A, limit: 100 })).then((page) => page.matchCount);

    const first = (sql: string) =>
      sql
        .trim()
        .split(/[\s;]+/)[0]
        ?.toLowerCase();

    it("creates the server, its 50 tool links, its audit event and its revision in 2 round trips", async () => {
      const { exit, statements } = await create("five by ten");
      expect(Exit.isSuccess(exit)).toBe(true);
      if (!Exit.isSuccess(exit)) return;
      // The providers, the tools and the variables the tools name, read ahead of the transaction (no
      // connection held for it); then BEGIN, the quota lock, the server with its links (checking the quota),
      // the audit event, the revision (docs/api-rules.md §21: the export document at this version, built from
      // the rows already read) and COMMIT in one round trip: the lock and the transaction's connection are
      // held for no turn-around of the service.
      expect(statements.map(first)).toEqual(["select", "begin"]);
      expect(statements[0]).toMatch(/from providers p[\s\S]*union all[\s\S]*from tools t[\s\S]*from variables v/);
      // The quota-checked insert is a statement prepared by SQL: `execute`, with its `prepare` ahead of it the
      // first time the connection runs it.
      expect(statements[1]).toMatch(
        /^begin;\s*select pg_advisory_xact_lock[\s\S]*execute mcpsm_\w+_sql\([\s\S]*insert into audit_events[\s\S]*insert into server_revisions[\s\S]*commit/,
      );
      expect(statements[1]).not.toMatch(/savepoint/);
      const graph = await read((tx) => tx.findServerGraph(exit.value.id));
      expect(graph?.tools).toHaveLength(PROVIDERS * TOOLS_PER_PROVIDER);
      expect(await auditEvents()).toBe(1);
      expect(await read((tx) => tx.countServers(TENANT_A))).toBe(1);
    });

    it("PATCH of a 5×10 server reads its graph once: its revision is built from the answer's read", async () => {
      const { exit: made } = await create("patched five by ten");
      if (!Exit.isSuccess(made)) throw new Error("the server was not made");
      const patcher = { ...actor, scopes: new Set(["server:update"]) };
      sent.length = 0;
      counting = true;
      const exit = await Effect.runPromiseExit(
        updateServer(patcher, { serverId: made.value.id, server: { description: "new" } }).pipe(
          Effect.provide(layer()),
        ),
      );
      counting = false;
      expect(Exit.isSuccess(exit)).toBe(true);
      expect(sent.filter((sql) => /from server_tools gst/.test(sql))).toHaveLength(1);
      expect(sent.filter((sql) => /insert into server_revisions/.test(sql))).toHaveLength(1);
      const revision = await read((tx) => tx.findServerRevision(made.value.id, 2));
      const answer = await read((tx) => tx.findServerGraph(made.value.id));
      expect(revision?.summary).toBe("changed description");
      expect(JSON.stringify(revision?.document)).toContain(`"description":"new"`);
      expect(answer?.server.version).toBe(2);
    });

    it("values written into a joined statement read back as sent (quotes, backslashes, non-ASCII)", async () => {
      const name = `it's a \\ "test" ünïcode 🚀 $1`;
      const { exit, statements } = await create(name);
      expect(Exit.isSuccess(exit)).toBe(true);
      if (!Exit.isSuccess(exit)) return;
      expect(statements).toHaveLength(2);
      expect((await read((tx) => tx.findServer(exit.value.id)))?.name).toBe(name);
    });

    it("the quota-checked insert is prepared once per connection, then only executed", async () => {
      const trips: Array<string> = [];
      for (let n = 0; n < 4; n++) {
        const { exit, statements } = await create(`prepared ${n}`);
        expect(Exit.isSuccess(exit)).toBe(true);
        trips.push(statements[1] ?? "");
      }
      const prepare = /prepare (mcpsm_\w+_sql) as with inserted as \(insert into servers[\s\S]*server_counts/;
      // One after another, the writes reuse the pool's idle connection: at most the first prepares it there.
      expect(trips.filter((sql) => prepare.test(sql)).length).toBeLessThanOrEqual(1);
      expect(trips.every((sql) => /execute mcpsm_\w+_sql\(/.test(sql))).toBe(true);
      const names = await handle.orm.em
        .getConnection()
        .execute("select name, statement from pg_prepared_statements where name like 'mcpsm_%_sql'");
      // This session's only (the pool's other sessions may hold theirs); each shows its round trip's text.
      for (const row of names as Array<{ statement: string }>)
        expect(row.statement).toMatch(/prepare mcpsm_\w+_sql as with inserted as \(insert into servers/);
      // The quota tests below count from what the earlier tests made.
      await handle.orm.em.getConnection().execute("delete from servers where name like 'prepared %'");
    });

    it("a taken name answers 409 and writes nothing: no server, no link, no audit event", async () => {
      const before = { servers: await read((tx) => tx.countServers(TENANT_A)), events: await auditEvents() };
      const { exit, statements } = await create("five by ten");
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("AlreadyExists");
      // The insert expected to succeed fails its round trip (the audit event and COMMIT after it never run):
      // rolled back, then run again with the insert on its own, whose breach the use case answers.
      expect(statements.map(first)).toEqual(["select", "begin", "rollback", "select", "begin", "rollback"]);
      expect(statements[1]).toMatch(/execute mcpsm_\w+_sql\([\s\S]*insert into audit_events/);
      expect(statements[4]).toMatch(/savepoint[\s\S]*insert into servers/);
      expect(statements[4]).not.toMatch(/audit_events|commit/);
      expect(await read((tx) => tx.countServers(TENANT_A))).toBe(before.servers);
      expect(await auditEvents()).toBe(before.events);
      expect(
        (await read((tx) => tx.listServerGraphs(TENANT_A))).filter((g) => g.server.name === "five by ten"),
      ).toHaveLength(1);
    });

    it("a write refused for the quota and for what it names answers the quota's 429, as before", async () => {
      const existing = await read((tx) => tx.countServers(TENANT_A));
      const unknownTool = [{ id: providers[0]?.id ?? "", tools: [{ id: tool(999, "").id }] }];
      const full = await create("bad and over", existing, unknownTool);
      expect(Exit.isFailure(full.exit) && JSON.stringify(full.exit.cause)).toContain("ResourceExhausted");
      const room = await create("bad, with room", existing + 1, unknownTool);
      expect(Exit.isFailure(room.exit) && JSON.stringify(room.exit.cause)).toContain("InvalidArgument");
      const taken = await create("five by ten", existing);
      expect(Exit.isFailure(taken.exit) && JSON.stringify(taken.exit.cause)).toContain("ResourceExhausted");
      expect(await read((tx) => tx.countServers(TENANT_A))).toBe(existing);
    });

    it("the quota counts what exists: creates up to it, then 429, then room again after a delete", async () => {
      const existing = await read((tx) => tx.countServers(TENANT_A));
      for (let n = existing; n < 3; n++) expect(Exit.isSuccess((await create(`quota ${n}`, 3)).exit)).toBe(true);
      const refused = await create("one too many", 3);
      expect(Exit.isFailure(refused.exit) && JSON.stringify(refused.exit.cause)).toContain("ResourceExhausted");
      const [oldest] = await read((tx) => tx.listServerGraphs(TENANT_A));
      await Effect.runPromise(handle.storage.transaction((tx) => tx.deleteServer(oldest?.server.id ?? "")));
      expect(await read((tx) => tx.countServers(TENANT_A))).toBe(2);
      expect(Exit.isSuccess((await create("room again", 3)).exit)).toBe(true);
      expect(await read((tx) => tx.countServers(TENANT_A))).toBe(3);
      // Deleting by any statement (here all at once, as the tests' reset does) keeps the count.
      await handle.orm.em.getConnection().execute("delete from servers");
      expect(await read((tx) => tx.countServers(TENANT_A))).toBe(0);
    });

    it("concurrent creates stop at the quota; each created server has one audit event, each refusal none", async () => {
      const existing = await read((tx) => tx.countServers(TENANT_A));
      const events = await auditEvents();
      const quota = existing + 4;
      const results = await Promise.all(Array.from({ length: 12 }, (_, n) => create(`race ${n}`, quota)));
      const created = results.filter((r) => Exit.isSuccess(r.exit));
      const refused = results.filter(
        (r) => Exit.isFailure(r.exit) && JSON.stringify(r.exit.cause).includes("ResourceExhausted"),
      );
      expect(created).toHaveLength(4);
      expect(refused).toHaveLength(8);
      expect(await read((tx) => tx.countServers(TENANT_A))).toBe(quota);
      expect(
        (await read((tx) => tx.listServerGraphs(TENANT_A))).filter((g) => g.server.name.startsWith("race ")),
      ).toHaveLength(4);
      const page = await read((tx) => tx.searchAuditEvents({ tenant: TENANT_A, limit: 100 }));
      expect(page.matchCount).toBe(events + 4);
      const ids = created.map((r) => (Exit.isSuccess(r.exit) ? r.exit.value.id : "")).sort();
      expect(
        page.items
          .slice(0, 4)
          .map((e) => e.targetId)
          .sort(),
      ).toEqual(ids);
    });
  });
