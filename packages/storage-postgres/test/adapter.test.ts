import { type Actor, ALL_SCOPES } from "@mcpsm/domain";
import { type ReadTx, type StorageTx, UniqueViolation } from "@mcpsm/domain/storage";
import {
  aesGcmCipherLayer,
  createProvider,
  createProviderTool,
  createServer,
  deleteProvider,
  getServer,
  hmacPageTokenSignerLayer,
  listProviders,
  quotasLayer,
  responseShapingLayer,
} from "@mcpsm/domain/use-cases";
import { provider, TENANT_A, tool } from "@mcpsm/storage-contract";
import { Cause, Context, Data, Effect, Exit, Layer } from "effect";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PostgresStorage } from "../src/index.js";
import { likeContains } from "../src/tx/providers.js";
import { migratedStorage, targets, truncateAll } from "./support/targets.js";

class Missing extends Data.TaggedError("Missing")<{ readonly what: string }> {}
class Greeting extends Context.Tag("test/Greeting")<Greeting, string>() {}

describe("likeContains", () => {
  it("escapes the LIKE wildcards and the escape character", () => {
    expect(likeContains("a%b_c\\d")).toBe("%a\\%b\\_c\\\\d%");
  });
});

// What the port's contract does not spell out but the PostgreSQL adapter must get right.
for (const target of targets)
  describe(`postgres adapter (${target.name})`, () => {
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
    const run = <A, E>(work: (tx: StorageTx) => Effect.Effect<A, E>) =>
      Effect.runPromise(handle.storage.transaction(work));

    beforeAll(async () => {
      handle = await migratedStorage(await target.create());
    });
    beforeEach(() => truncateAll(handle));
    afterAll(() => handle?.dispose());

    it("a breach the work recovers from undoes that write only; the rest of the transaction commits", async () => {
      const a = provider(1, { name: "taken" });
      await run((tx) => tx.insertProvider(a));
      const caught = await run((tx) =>
        Effect.gen(function* () {
          yield* tx.insertProvider(provider(2));
          const clash = yield* Effect.flip(tx.insertProvider(provider(3, { name: "taken" })));
          const missing = yield* Effect.flip(tx.insertTool(tool(1, "nosuchprovi")));
          yield* tx.insertProvider(provider(4));
          return [clash, missing];
        }),
      );
      expect(caught[0]).toBeInstanceOf(UniqueViolation);
      expect(caught[1]).toMatchObject({ _tag: "ReferenceViolation", kind: "tool" });
      const ids = await run((tx) =>
        Effect.map(tx.searchProviders({ viewerTenant: TENANT_A, limit: 10 }), (page) =>
          page.items.map((i) => i.provider.id),
        ),
      );
      expect(ids).toEqual([provider(1).id, provider(2).id, provider(4).id]);
    });

    it("the work's own errors and requirements flow through transaction and read", async () => {
      const work = (tx: ReadTx) =>
        Effect.gen(function* () {
          const greeting = yield* Greeting;
          const found = yield* tx.findProvider("nonexistent");
          if (found === undefined) return yield* new Missing({ what: greeting });
          return found;
        });
      for (const runner of [handle.storage.transaction, handle.storage.read]) {
        const exit = await Effect.runPromiseExit(Effect.provideService(runner(work), Greeting, "hello"));
        expect(exit).toEqual(Exit.fail(new Missing({ what: "hello" })));
      }
    });

    it("operations of one transaction may run concurrently", async () => {
      const providers = Array.from({ length: 10 }, (_, i) => provider(i + 1));
      await run((tx) =>
        Effect.all(
          providers.map((p) => tx.insertProvider(p)),
          { concurrency: "unbounded" },
        ),
      );
      const found = await run((tx) =>
        Effect.all(
          providers.map((p) => tx.findProvider(p.id)),
          { concurrency: "unbounded" },
        ),
      );
      expect(found).toEqual(providers);
    });

    it("a StorageTx used after its transaction ended is a defect, not a silent write", async () => {
      let leaked: StorageTx | undefined;
      await run((tx) => Effect.sync(() => (leaked = tx)));
      const exit = await Effect.runPromiseExit(leaked!.insertProvider(provider(1)));
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true);
      expect(await run((tx) => tx.countProviders(TENANT_A))).toBe(0);
    });

    it("keeps milliseconds and JSON documents exactly", async () => {
      const p = provider(1, {
        createdAt: new Date("2024-02-29T23:59:59.999Z"),
        updatedAt: new Date("1999-12-31T00:00:00.001Z"),
        oauth2Config: {
          clientID: "ü ✓ \u{1F600} \"quoted\" 'single' \\ back",
          clientSecretCipher: null,
          authURL: "",
          tokenURL: "",
        },
      });
      const t = tool(1, p.id, {
        pathArgsJSONSchema: {
          type: "object",
          properties: { "we ird/key": { type: "string", enum: ["%", "_", "\\"], default: null } },
          required: ["we ird/key"],
          additionalProperties: false,
          "x-number": 1.5e-7,
          "x-nested": [[], {}, [1, [2, [3]]]],
        },
        queryArgsJSONSchema: {},
        reqBodyJSONSchema: null,
        reqContentType: "application/json",
        reqBodyEncoding: {},
        respBodyJSONSchema: null,
        outputSchemaMode: "LENIENT",
        headers: [],
        oauth2Scopes: [],
        imported: false,
        operationPath: "",
        longRunning: false,
      });
      await run((tx) => Effect.zipRight(tx.insertProvider(p), tx.insertTool(t)));
      const stored = await run((tx) => Effect.all([tx.findProvider(p.id), tx.findTool(t.id)]));
      expect(stored).toEqual([p, t]);
      expect(stored[0]?.createdAt.getTime()).toBe(p.createdAt.getTime());
    });

    it("the domain's use cases run on the adapter", async () => {
      const actor: Actor = { tenant: TENANT_A, scopes: new Set(ALL_SCOPES) };
      const services = Layer.mergeAll(
        handle.layer,
        aesGcmCipherLayer(new Uint8Array(32).fill(7)),
        hmacPageTokenSignerLayer(new Uint8Array(32).fill(9)),
        quotasLayer(),
        responseShapingLayer(),
      );
      const flow = Effect.gen(function* () {
        const created = yield* createProvider(actor, {
          provider: { name: "GitHub", baseURL: "https://api.github.com", oauth2Config: { clientSecret: "s3cret" } },
        });
        const listed = yield* createProviderTool(actor, {
          providerId: created.id,
          tool: { name: "listIssues", method: "GET", path: "/issues" },
        });
        const made = yield* createServer(actor, { server: { name: "main", providers: [{ id: created.id }] } });
        const fetched = yield* getServer(actor, { serverId: made.id });
        const page = yield* listProviders(actor, { nameContains: "git" });
        const blocked = yield* Effect.flip(deleteProvider(actor, { providerId: created.id }));
        return { created, listed, fetched, page, blocked };
      });
      const { created, listed, fetched, page, blocked } = await Effect.runPromise(Effect.provide(flow, services));
      expect(created.version).toBe(1);
      expect(fetched.providers.map((p) => p.tools.map((t) => t.id))).toEqual([[listed.id]]);
      // The tool made the provider's version move on.
      expect(fetched.providers[0]?.version).toBe(2);
      expect(page.matchCount).toBe(1);
      expect(blocked._tag).toBe("FailedPrecondition");
    });
  });
