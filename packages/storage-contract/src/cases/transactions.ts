import type { StorageTx } from "@mcpsm/domain/storage";
import { Cause, Data, Effect, Either, Exit } from "effect";
import { describe, expect, it } from "vitest";
import {
  at,
  prompt,
  provider,
  resource,
  server,
  serverToken,
  TENANT_A,
  TENANT_B,
  tokenHash,
  tool,
  variable,
} from "../fixtures.js";
import type { Harness } from "../harness.js";

class Boom extends Data.TaggedError("Boom")<{ readonly after: string }> {}

const p1 = provider(1);
const p2 = provider(2);
const p3 = provider(3, { visibilityType: "PUBLIC" });
const [t1, t2, t3] = [tool(1, p1.id), tool(2, p2.id), tool(3, p3.id)];
const [q1, q3] = [prompt(1, p1.id), prompt(3, p3.id)];
const [r1, r3] = [resource(1, p1.id), resource(3, p3.id)];
const s1 = server(1, {
  providers: [{ providerId: p1.id, toolIds: [t1.id] }],
  resourceIds: [r1.id],
  promptIds: [q1.id],
});
const s2 = server(2, { providers: [{ providerId: p3.id, toolIds: [t3.id] }], resourceIds: [r3.id] });
const s3 = server(3);
const [k1, k2, k3] = [serverToken(1, s1.id), serverToken(2, s2.id), serverToken(3, s3.id)];
const [v1, v2, v3] = [variable(1), variable(2), variable(3)];

const world = {
  providers: [p1, p2],
  tools: [t1, t2],
  prompts: [q1],
  resources: [r1],
  variables: [v1, v3],
  servers: [s1, s3],
  serverTokens: [k1, k3],
};

/** One of every kind of write against `world`: inserts, updates, deletes and cascades. */
const writeEverything = (tx: StorageTx) =>
  Effect.gen(function* () {
    yield* tx.insertProvider(p3);
    yield* tx.insertTool(t3);
    yield* tx.insertPrompt(q3);
    yield* tx.insertResource(r3);
    const providerMoved = yield* tx.updateProvider({ ...p1, name: "renamed", version: 2, updatedAt: at(60) }, 1);
    yield* tx.updateTool({ ...t1, name: "renamed_tool" });
    yield* tx.updatePrompt({ ...q1, description: "changed" });
    yield* tx.updateResource({ ...r1, size: 1 });
    yield* tx.deleteTool(t2.id);
    yield* tx.deleteProvider(p2.id);
    yield* tx.insertVariable(v2);
    yield* tx.updateVariable({ ...v1, value: "changed" });
    yield* tx.deleteVariable(v3.id);
    yield* tx.insertServer(s2);
    const serverMoved = yield* tx.updateServer({ ...s1, promptIds: [], version: 2 }, 1);
    yield* tx.insertServerToken(k2);
    yield* tx.deleteServerToken(k1.id);
    yield* tx.deleteServer(s3.id);
    expect([providerMoved, serverMoved]).toEqual([true, true]);
  });

/** Everything a client could read of `world` and of what `writeEverything` writes. */
const snapshot = (h: Harness) =>
  h.read((tx) =>
    Effect.all({
      providers: Effect.all(
        [TENANT_A, TENANT_B].map((viewerTenant) => tx.searchProviders({ viewerTenant, limit: 100 })),
      ),
      children: Effect.all(
        [p1, p2, p3].map((p) => Effect.all([tx.listTools(p.id), tx.listPrompts(p.id), tx.listResources(p.id)])),
      ),
      variables: tx.listVariables(TENANT_A),
      servers: tx.listServerGraphs(TENANT_A),
      tokens: Effect.all([s1, s2, s3].map((s) => tx.listServerTokens(s.id))),
      counts: Effect.all([tx.countProviders(TENANT_A), tx.countServers(TENANT_A), tx.countVariables(TENANT_A)]),
      byHash: Effect.all([1, 2, 3].map((n) => tx.findServerTokenByHash(tokenHash(n)))),
      users: tx.serversReferencing({ kind: "prompt", id: q1.id }),
    }),
  );

/** Atomicity: all writes of a transaction commit together, or none does. */
export const transactionCases = (h: Harness) =>
  describe("transactions", () => {
    it("a transaction whose work fails after writing leaves no trace, and fails with the work's error", async () => {
      await h.seed(world);
      const before = await snapshot(h);
      const error = await h.failure((tx) =>
        Effect.andThen(writeEverything(tx), Effect.fail(new Boom({ after: "every write" }))),
      );
      expect(error).toBeInstanceOf(Boom);
      expect(error).toMatchObject({ after: "every write" });
      expect(await snapshot(h)).toEqual(before);
    });

    it("a transaction interrupted after writing leaves no trace", async () => {
      await h.seed(world);
      const before = await snapshot(h);
      const exit = await Effect.runPromiseExit(
        h.storage().transaction((tx) => Effect.andThen(writeEverything(tx), Effect.interrupt)),
      );
      expect(Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)).toBe(true);
      expect(await snapshot(h)).toEqual(before);
    });

    it("a transaction that dies after writing leaves no trace", async () => {
      await h.seed(world);
      const before = await snapshot(h);
      const exit = await Effect.runPromiseExit(
        h.storage().transaction((tx) => Effect.andThen(writeEverything(tx), Effect.dieMessage("defect"))),
      );
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true);
      expect(await snapshot(h)).toEqual(before);
    });

    it("a storage error undoes the writes before it", async () => {
      await h.seed(world);
      const before = await snapshot(h);
      const error = await h.failure((tx) =>
        Effect.gen(function* () {
          yield* tx.insertProvider(p3);
          yield* tx.deleteTool(t2.id);
          yield* tx.insertProvider(provider(9, { name: p1.name }));
        }),
      );
      expect(error).toMatchObject({ _tag: "UniqueViolation", kind: "provider", name: p1.name });
      expect(await snapshot(h)).toEqual(before);
    });

    it("a transaction that succeeds commits all its writes", async () => {
      await h.seed(world);
      await h.run(writeEverything);
      const found = await h.read((tx) =>
        Effect.all({
          p1: tx.findProvider(p1.id),
          p2: tx.findProvider(p2.id),
          p3: tx.findProviderWithTools(p3.id),
          t1: tx.findTool(t1.id),
          t2: tx.findTool(t2.id),
          q1: tx.findPrompt(q1.id),
          q3: tx.findPrompt(q3.id),
          r1: tx.findResource(r1.id),
          variables: tx.listVariables(TENANT_A),
          servers: Effect.map(tx.listServerGraphs(TENANT_A), (graphs) => graphs.map((g) => g.server)),
          tokens: Effect.all([tx.findServerToken(k1.id), tx.findServerToken(k2.id), tx.findServerToken(k3.id)]),
        }),
      );
      expect(found).toEqual({
        p1: { ...p1, name: "renamed", version: 2, updatedAt: at(60) },
        p2: undefined,
        p3: { provider: p3, tools: [t3] },
        t1: { ...t1, name: "renamed_tool" },
        t2: undefined,
        q1: { ...q1, description: "changed" },
        q3,
        r1: { ...r1, size: 1 },
        variables: [{ ...v1, value: "changed" }, v2],
        servers: [{ ...s1, promptIds: [], version: 2 }, s2],
        tokens: [undefined, k2, undefined],
      });
    });

    it("later reads in a transaction see its earlier writes", async () => {
      await h.seed(world);
      const seen = await h.run((tx) =>
        Effect.gen(function* () {
          yield* writeEverything(tx);
          return {
            provider: yield* tx.findProvider(p3.id),
            withTools: yield* tx.findProviderWithTools(p3.id),
            tools: yield* tx.listTools(p3.id),
            providerCount: yield* tx.countProviders(TENANT_A),
            searched: (yield* tx.searchProviders({ viewerTenant: TENANT_B, limit: 10 })).items.map(
              (i) => i.provider.id,
            ),
            renamed: (yield* tx.findTool(t1.id))?.name,
            deletedTool: yield* tx.findTool(t2.id),
            deletedProvider: yield* tx.findProvider(p2.id),
            variable: (yield* tx.findVariable(v1.id))?.value,
            variableCount: yield* tx.countVariables(TENANT_A),
            graphTools: (yield* tx.findServerGraph(s2.id))?.tools,
            users: yield* tx.serversReferencing({ kind: "tool", id: t3.id }),
            serverCount: yield* tx.countServers(TENANT_A),
            token: yield* tx.findServerTokenByHash(tokenHash(2)),
            revoked: yield* tx.findServerTokenByHash(tokenHash(1)),
            deletedServer: yield* tx.findServer(s3.id),
            cascadedTokens: yield* tx.listServerTokens(s3.id),
          };
        }),
      );
      expect(seen).toEqual({
        provider: p3,
        withTools: { provider: p3, tools: [t3] },
        tools: [t3],
        providerCount: 2,
        searched: [p3.id],
        renamed: "renamed_tool",
        deletedTool: undefined,
        deletedProvider: undefined,
        variable: "changed",
        variableCount: 2,
        graphTools: [t3],
        users: [{ id: s2.id, tenant: TENANT_A }],
        serverCount: 2,
        token: k2,
        revoked: undefined,
        deletedServer: undefined,
        cascadedTokens: [],
      });
    });

    it("of two concurrent transactions inserting the same name, exactly one commits", async () => {
      const insert = (n: number) =>
        h
          .storage()
          .transaction((tx) => Effect.zipRight(Effect.yieldNow(), tx.insertProvider(provider(n, { name: "race" }))))
          .pipe(Effect.either);
      const results = await Effect.runPromise(Effect.all([insert(1), insert(2)], { concurrency: "unbounded" }));
      expect(results.filter(Either.isRight)).toHaveLength(1);
      expect(results.filter(Either.isLeft).map((e) => e.left)).toMatchObject([
        { _tag: "UniqueViolation", kind: "provider", name: "race" },
      ]);
      expect(await h.read((tx) => tx.countProviders(TENANT_A))).toBe(1);
    });

    it("lock serialises a count-then-insert: concurrent transactions under one key never overshoot a limit", async () => {
      // Each transaction inserts only while fewer than 2 variables exist; without the lock, all 6 could
      // read 0 and insert.
      const insertUnderLimit = (n: number) =>
        h.storage().transaction((tx) =>
          Effect.gen(function* () {
            yield* tx.lock(`quota:variables:${TENANT_A}`);
            const existing = yield* tx.countVariables(TENANT_A);
            yield* Effect.yieldNow();
            if (existing < 2) yield* tx.insertVariable(variable(n));
          }),
        );
      await Effect.runPromise(
        Effect.all([1, 2, 3, 4, 5, 6].map(insertUnderLimit), { concurrency: "unbounded", discard: true }),
      );
      expect(await h.read((tx) => tx.countVariables(TENANT_A))).toBe(2);
    });
  });
