import type { ReadTx, StorageTx } from "@mcpsm/domain/storage";
import { prompt, provider, resource, server, TENANT_A, tool } from "@mcpsm/storage-contract";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStorage } from "../src/index.js";
import { migratedStorage, targets } from "./support/targets.js";

// findServerGraph and listServerGraphs are set-based: the number of SQL statements they send does not
// grow with the number of providers, tools, resources and prompts. Counted at the driver (every statement
// the pg client sends), on a small server and on a server of 50 providers × 20 tools.

const PROVIDERS = 50;
const TOOLS_PER_PROVIDER = 20;

for (const target of targets)
  describe(`statement count (${target.name})`, () => {
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
    let counting = false;
    const sent: Array<string> = [];

    beforeAll(async () => {
      handle = await migratedStorage(await target.create(), {
        onStatement: (sql) => {
          if (counting) sent.push(sql);
        },
      });
      const run = <A, E>(work: (tx: StorageTx) => Effect.Effect<A, E>) =>
        Effect.runPromise(handle.storage.transaction(work));

      // Small: one provider with one tool, one resource and one prompt; tenant A has this server only.
      const small = provider(1);
      await run((tx) =>
        Effect.gen(function* () {
          yield* tx.insertProvider(small);
          yield* tx.insertTool(tool(1, small.id));
          yield* tx.insertResource(resource(1, small.id));
          yield* tx.insertPrompt(prompt(1, small.id));
          yield* tx.insertServer(
            server(1, {
              providers: [{ providerId: small.id, toolIds: [tool(1, small.id).id] }],
              resourceIds: [resource(1, small.id).id],
              promptIds: [prompt(1, small.id).id],
            }),
          );
        }),
      );

      // Large: 50 providers × 20 tools (plus a resource and a prompt each), all chosen by two servers of
      // tenant "large".
      const big = Array.from({ length: PROVIDERS }, (_, i) => provider(100 + i, { tenant: "large" }));
      const links = big.map((p, i) => ({
        providerId: p.id,
        toolIds: Array.from({ length: TOOLS_PER_PROVIDER }, (_, j) => tool(1000 + i * TOOLS_PER_PROVIDER + j, p.id).id),
      }));
      await run((tx) =>
        Effect.gen(function* () {
          for (const [i, p] of big.entries()) {
            yield* tx.insertProvider(p);
            for (let j = 0; j < TOOLS_PER_PROVIDER; j++)
              yield* tx.insertTool(tool(1000 + i * TOOLS_PER_PROVIDER + j, p.id, { name: `tool${j}` }));
            yield* tx.insertResource(resource(100 + i, p.id));
            yield* tx.insertPrompt(prompt(100 + i, p.id));
          }
          for (const n of [2, 3])
            yield* tx.insertServer(
              server(n, {
                tenant: "large",
                providers: links,
                resourceIds: big.map((p, i) => resource(100 + i, p.id).id),
                promptIds: big.map((p, i) => prompt(100 + i, p.id).id),
              }),
            );
        }),
      );
    });
    afterAll(() => handle?.dispose());

    /** Runs `work` with `read` and answers its result and the statements it sent. */
    const measure = async <A>(work: (tx: ReadTx) => Effect.Effect<A>) => {
      sent.length = 0;
      counting = true;
      try {
        const result = await Effect.runPromise(handle.storage.read(work));
        return { result, statements: [...sent] };
      } finally {
        counting = false;
      }
    };

    it("findServerGraph sends one statement, for 1 provider as for 50 providers × 20 tools", async () => {
      const small = await measure((tx) => tx.findServerGraph(server(1).id));
      const large = await measure((tx) => tx.findServerGraph(server(2).id));
      expect(small.result?.tools).toHaveLength(1);
      expect(large.result?.providers).toHaveLength(PROVIDERS);
      expect(large.result?.tools).toHaveLength(PROVIDERS * TOOLS_PER_PROVIDER);
      expect(large.result?.resources).toHaveLength(PROVIDERS);
      expect(large.result?.prompts).toHaveLength(PROVIDERS);
      console.info(
        `[${target.name}] findServerGraph statements: ${small.statements.length} (1 provider, 1 tool), ` +
          `${large.statements.length} (${PROVIDERS} providers × ${TOOLS_PER_PROVIDER} tools)`,
      );
      expect(small.statements).toHaveLength(1);
      expect(large.statements).toHaveLength(small.statements.length);
    });

    it("listServerGraphs sends one statement, for 1 provider as for 50 providers × 20 tools", async () => {
      const small = await measure((tx) => tx.listServerGraphs(TENANT_A));
      const large = await measure((tx) => tx.listServerGraphs("large"));
      expect(small.result).toHaveLength(1);
      expect(large.result).toHaveLength(2);
      expect(large.result.map((g) => g.tools.length)).toEqual([1000, 1000]);
      console.info(
        `[${target.name}] listServerGraphs statements: ${small.statements.length} (1 server, 1 provider), ` +
          `${large.statements.length} (2 servers × ${PROVIDERS} providers × ${TOOLS_PER_PROVIDER} tools)`,
      );
      expect(small.statements).toHaveLength(1);
      expect(large.statements).toHaveLength(small.statements.length);
    });

    it("findProvidersAndTools sends one statement, for 1 id as for 50 providers' 1,000 tools", async () => {
      const providerIds = Array.from({ length: PROVIDERS }, (_, i) => provider(100 + i).id);
      const toolIds = providerIds.flatMap((_, i) =>
        Array.from({ length: TOOLS_PER_PROVIDER }, (_, j) => tool(1000 + i * TOOLS_PER_PROVIDER + j, "").id),
      );
      const one = await measure((tx) => tx.findProvidersAndTools([provider(1).id], [tool(1, "").id]));
      const many = await measure((tx) => tx.findProvidersAndTools(providerIds, toolIds));
      expect([one.result.providers.length, one.result.tools.length]).toEqual([1, 1]);
      expect([many.result.providers.length, many.result.tools.length]).toEqual([
        PROVIDERS,
        PROVIDERS * TOOLS_PER_PROVIDER,
      ]);
      expect(one.statements).toHaveLength(1);
      expect(many.statements).toHaveLength(1);
    });

    it("inside a transaction the same reads add only BEGIN (in their round trip) and COMMIT", async () => {
      sent.length = 0;
      counting = true;
      try {
        await Effect.runPromise(handle.storage.transaction((tx) => tx.findServerGraph(server(2).id)));
      } finally {
        counting = false;
      }
      // BEGIN travels with the transaction's first read (its parameters written in): two round trips.
      expect(sent).toHaveLength(2);
      expect(sent[0]).toMatch(/^begin;\s*select /);
      expect(sent[1]).toMatch(/^commit/);
    });
  });
