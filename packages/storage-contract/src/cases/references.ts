import type { ServerRow, StorageTx } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { MISSING_ID, prompt, provider, resource, server, serverToken, TENANT_B, tool } from "../fixtures.js";
import type { Harness } from "../harness.js";

// A ReferenceViolation names the kind of the record being written or deleted, not of the missing or
// referencing one.
const broken = (kind: string) => ({ _tag: "ReferenceViolation", kind });

const p1 = provider(1);
const p2 = provider(2, { tenant: TENANT_B, visibilityType: "PUBLIC" });
const t1 = tool(1, p1.id);
const t2 = tool(2, p2.id);
const q1 = prompt(1, p1.id);
const r1 = resource(1, p1.id);
const world = { providers: [p1, p2], tools: [t1, t2], prompts: [q1], resources: [r1] };

/** Server links that name something that does not exist. */
const badLinks: ReadonlyArray<readonly [string, Partial<ServerRow>]> = [
  ["a missing provider", { providers: [{ providerId: MISSING_ID, toolIds: [] }] }],
  ["a missing tool", { providers: [{ providerId: p1.id, toolIds: [t1.id, MISSING_ID] }] }],
  ["a tool under a provider it does not belong to", { providers: [{ providerId: p1.id, toolIds: [t2.id] }] }],
  ["a missing resource", { resourceIds: [r1.id, MISSING_ID] }],
  ["a missing prompt", { promptIds: [MISSING_ID] }],
];

/** Ways a server can use provider p1: directly, or through one of its tools, resources or prompts. */
const usesOfP1: ReadonlyArray<readonly [string, Partial<ServerRow>]> = [
  ["directly", { providers: [{ providerId: p1.id, toolIds: [] }] }],
  ["through one of its tools", { providers: [{ providerId: p1.id, toolIds: [t1.id] }] }],
  ["through one of its resources", { resourceIds: [r1.id] }],
  ["through one of its prompts", { promptIds: [q1.id] }],
];

/** Writes that need an existing record, and deletes of records a server still uses. */
export const referenceCases = (h: Harness) =>
  describe("references", () => {
    it("a tool, prompt or resource needs an existing provider", async () => {
      expect(await h.failure((tx) => tx.insertTool(tool(1, MISSING_ID)))).toMatchObject(broken("tool"));
      expect(await h.failure((tx) => tx.insertPrompt(prompt(1, MISSING_ID)))).toMatchObject(broken("prompt"));
      expect(await h.failure((tx) => tx.insertResource(resource(1, MISSING_ID)))).toMatchObject(broken("resource"));
      const found = await h.run((tx) => Effect.all([tx.findTool(t1.id), tx.findPrompt(q1.id), tx.findResource(r1.id)]));
      expect(found).toEqual([undefined, undefined, undefined]);
    });

    it("a server token needs an existing server", async () => {
      expect(await h.failure((tx) => tx.insertServerToken(serverToken(1, MISSING_ID)))).toMatchObject(
        broken("serverToken"),
      );
      expect(await h.run((tx) => tx.findServerToken(serverToken(1, MISSING_ID).id))).toBeUndefined();
    });

    it("insertServer within a quota inserts only below it, links included; a refused one reports no breach", async () => {
      const linked = { providers: [{ providerId: p1.id, toolIds: [t1.id] }], resourceIds: [r1.id], promptIds: [q1.id] };
      await h.seed({ ...world, servers: [server(1), server(2)] });
      expect(await h.run((tx) => tx.insertServer(server(3, linked), 2))).toBe(false);
      expect(await h.run((tx) => tx.findServerGraph(server(3).id))).toBeUndefined();
      expect(await h.run((tx) => tx.countServers(server(3).tenant))).toBe(2);
      // Refused for the quota before anything it names is checked: no ReferenceViolation, no UniqueViolation.
      expect(await h.run((tx) => tx.insertServer(server(4, badLinks[1]?.[1]), 2))).toBe(false);
      expect(await h.run((tx) => tx.insertServer(server(5, { name: server(1).name }), 2))).toBe(false);
      // Another tenant's servers do not count.
      expect(await h.run((tx) => tx.insertServer(server(6, { tenant: TENANT_B }), 1))).toBe(true);
      expect(await h.run((tx) => tx.insertServer(server(3, linked), 3))).toBe(true);
      const graph = await h.run((tx) => tx.findServerGraph(server(3).id));
      expect(graph?.server).toEqual(server(3, linked));
      expect([graph?.tools, graph?.resources, graph?.prompts]).toEqual([[t1], [r1], [q1]]);
      expect(await h.run((tx) => tx.countServers(server(3).tenant))).toBe(3);
      // Below the quota, what it names is checked as without one.
      expect(await h.failure((tx) => tx.insertServer(server(7, badLinks[1]?.[1]), 10))).toMatchObject(broken("server"));
      expect(await h.failure((tx) => tx.insertServer(server(8, { name: server(1).name }), 10))).toMatchObject({
        _tag: "UniqueViolation",
      });
      expect(await h.run((tx) => tx.countServers(server(3).tenant))).toBe(3);
    });

    for (const [what, links] of badLinks) {
      it(`insertServer naming ${what} fails and stores nothing`, async () => {
        await h.seed(world);
        expect(await h.failure((tx) => tx.insertServer(server(1, links)))).toMatchObject(broken("server"));
        expect(await h.run((tx) => tx.findServer(server(1).id))).toBeUndefined();
      });

      it(`updateServer naming ${what} fails and changes nothing`, async () => {
        const stored = server(1, { providers: [{ providerId: p1.id, toolIds: [t1.id] }], resourceIds: [r1.id] });
        await h.seed({ ...world, servers: [stored] });
        expect(await h.failure((tx) => tx.updateServer({ ...stored, ...links, version: 2 }, 1))).toMatchObject(
          broken("server"),
        );
        expect(await h.run((tx) => tx.findServer(stored.id))).toEqual(stored);
      });
    }

    it("a server may link another tenant's provider and its tools", async () => {
      const row = server(1, { providers: [{ providerId: p2.id, toolIds: [t2.id] }] });
      await h.seed({ ...world, servers: [row] });
      expect(await h.run((tx) => tx.findServer(row.id))).toEqual(row);
    });

    for (const [how, links] of usesOfP1) {
      it(`deleting a provider a server uses ${how} fails and deletes nothing`, async () => {
        await h.seed({ ...world, servers: [server(1, links)] });
        expect(await h.failure((tx) => tx.deleteProvider(p1.id))).toMatchObject(broken("provider"));
        const found = await h.run((tx) =>
          Effect.all([tx.findProvider(p1.id), tx.findTool(t1.id), tx.findPrompt(q1.id), tx.findResource(r1.id)]),
        );
        expect(found).toEqual([p1, t1, q1, r1]);
      });
    }

    const childDeletes: ReadonlyArray<
      readonly [
        string,
        Partial<ServerRow>,
        (tx: StorageTx) => Effect.Effect<void, unknown>,
        (tx: StorageTx) => Effect.Effect<unknown>,
      ]
    > = [
      [
        "tool",
        { providers: [{ providerId: p1.id, toolIds: [t1.id] }] },
        (tx) => tx.deleteTool(t1.id),
        (tx) => tx.findTool(t1.id),
      ],
      ["prompt", { promptIds: [q1.id] }, (tx) => tx.deletePrompt(q1.id), (tx) => tx.findPrompt(q1.id)],
      ["resource", { resourceIds: [r1.id] }, (tx) => tx.deleteResource(r1.id), (tx) => tx.findResource(r1.id)],
    ];
    for (const [kind, links, remove, find] of childDeletes) {
      it(`deleting a ${kind} a server uses fails and deletes nothing`, async () => {
        await h.seed({ ...world, servers: [server(1, links)] });
        expect(await h.failure(remove)).toMatchObject(broken(kind));
        expect(await h.run(find)).toBeDefined();
      });
    }

    it("records a server stopped using can be deleted", async () => {
      const row = server(1, {
        providers: [{ providerId: p1.id, toolIds: [t1.id] }],
        resourceIds: [r1.id],
        promptIds: [q1.id],
      });
      await h.seed({ ...world, servers: [row] });
      await h.run((tx) => tx.updateServer({ ...row, providers: [{ providerId: p1.id, toolIds: [] }], version: 2 }, 1));
      await h.run((tx) => tx.deleteTool(t1.id));
      await h.run((tx) =>
        tx.updateServer({ ...row, providers: [], resourceIds: [], promptIds: [q1.id], version: 3 }, 2),
      );
      await h.run((tx) => tx.deleteResource(r1.id));
      await h.run((tx) => tx.updateServer({ ...row, providers: [], resourceIds: [], promptIds: [], version: 4 }, 3));
      await h.run((tx) => tx.deleteProvider(p1.id));
      expect(await h.run((tx) => tx.findProvider(p1.id))).toBeUndefined();
    });
  });
