import type { PromptRow, ResourceRow, StorageTx, ToolRow } from "@mcpsm/domain/storage";
import type { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { prompt, provider, resource, server, TENANT_A, TENANT_B, tool, variable } from "../fixtures.js";
import type { Harness } from "../harness.js";

const clash = (kind: string, name: string) => ({ _tag: "UniqueViolation", kind, name });

/** How to write one kind of provider child. */
interface ChildCase<Row extends ToolRow | PromptRow | ResourceRow> {
  readonly kind: "tool" | "prompt" | "resource";
  readonly make: (n: number, owner: string) => Row;
  readonly insert: (tx: StorageTx, row: Row) => Effect.Effect<void, unknown>;
  readonly update: (tx: StorageTx, row: Row) => Effect.Effect<void, unknown>;
  readonly find: (tx: StorageTx, id: string) => Effect.Effect<Row | undefined>;
}

const p1 = provider(1);
const p2 = provider(2);

const childNames = <Row extends ToolRow | PromptRow | ResourceRow>(h: Harness, c: ChildCase<Row>) => {
  it(`${c.kind} names are unique per provider`, async () => {
    const first = { ...c.make(1, p1.id), name: "same" };
    await h.seed({ providers: [p1, p2] });
    await h.run((tx) => c.insert(tx, first));
    expect(await h.failure((tx) => c.insert(tx, { ...c.make(2, p1.id), name: "same" }))).toMatchObject(
      clash(c.kind, "same"),
    );
    const underOther = { ...c.make(3, p2.id), name: "same" };
    await h.run((tx) => c.insert(tx, underOther));
    expect(await h.run((tx) => c.find(tx, underOther.id))).toEqual(underOther);
  });

  it(`renaming a ${c.kind} onto a sibling's name fails; onto another provider's child's name it does not`, async () => {
    const a = { ...c.make(1, p1.id), name: "a" };
    const b = { ...c.make(2, p1.id), name: "b" };
    const other = { ...c.make(3, p2.id), name: "c" };
    await h.seed({ providers: [p1, p2] });
    await h.run((tx) => c.insert(tx, a));
    await h.run((tx) => c.insert(tx, b));
    await h.run((tx) => c.insert(tx, other));
    expect(await h.failure((tx) => c.update(tx, { ...b, name: "a" }))).toMatchObject(clash(c.kind, "a"));
    expect(await h.run((tx) => c.find(tx, b.id))).toEqual(b);
    // Keeping its own name is no clash with itself.
    await h.run((tx) => c.update(tx, { ...b, description: "changed" }));
    await h.run((tx) => c.update(tx, { ...b, name: "c" }));
    expect(await h.run((tx) => c.find(tx, b.id))).toEqual({ ...b, name: "c" });
  });
};

/** Names unique per tenant (providers, servers, variables) or per provider (tools, prompts, resources). */
export const uniquenessCases = (h: Harness) =>
  describe("uniqueness", () => {
    it("provider names are unique per tenant", async () => {
      await h.seed({ providers: [provider(1, { name: "GitHub" })] });
      expect(await h.failure((tx) => tx.insertProvider(provider(2, { name: "GitHub" })))).toMatchObject(
        clash("provider", "GitHub"),
      );
      await h.run((tx) => tx.insertProvider(provider(3, { name: "GitHub", tenant: TENANT_B })));
      expect(await h.run((tx) => tx.countProviders(TENANT_A))).toBe(1);
      expect(await h.run((tx) => tx.countProviders(TENANT_B))).toBe(1);
    });

    it("renaming a provider onto a taken name fails; keeping its own name does not", async () => {
      const a = provider(1, { name: "a" });
      const b = provider(2, { name: "b" });
      await h.seed({ providers: [a, b, provider(3, { name: "c", tenant: TENANT_B })] });
      expect(await h.failure((tx) => tx.updateProvider({ ...b, name: "a", version: 2 }, 1))).toMatchObject(
        clash("provider", "a"),
      );
      expect(await h.run((tx) => tx.findProvider(b.id))).toEqual(b);
      expect(await h.run((tx) => tx.updateProvider({ ...b, description: "changed", version: 2 }, 1))).toBe(true);
      expect(await h.run((tx) => tx.updateProvider({ ...b, name: "c", version: 3 }, 2))).toBe(true);
    });

    it("server names are unique per tenant, on insert and on update", async () => {
      await h.seed({ servers: [server(1, { name: "main" }), server(2, { name: "second" })] });
      expect(await h.failure((tx) => tx.insertServer(server(3, { name: "main" })))).toMatchObject(
        clash("server", "main"),
      );
      await h.run((tx) => tx.insertServer(server(4, { name: "main", tenant: TENANT_B })));
      expect(await h.failure((tx) => tx.updateServer(server(2, { name: "main", version: 2 }), 1))).toMatchObject(
        clash("server", "main"),
      );
      expect(await h.run((tx) => tx.findServer(server(2).id))).toEqual(server(2, { name: "second" }));
      expect(await h.run((tx) => tx.updateServer(server(2, { name: "second", description: "x", version: 2 }), 1))).toBe(
        true,
      );
      expect(await h.run((tx) => tx.countServers(TENANT_A))).toBe(2);
    });

    it("variable names are unique per tenant", async () => {
      await h.seed({ variables: [variable(1, { name: "API_KEY" })] });
      expect(await h.failure((tx) => tx.insertVariable(variable(2, { name: "API_KEY" })))).toMatchObject(
        clash("variable", "API_KEY"),
      );
      await h.run((tx) => tx.insertVariable(variable(3, { name: "API_KEY", tenant: TENANT_B })));
      expect(await h.run((tx) => tx.countVariables(TENANT_A))).toBe(1);
    });

    childNames(h, {
      kind: "tool",
      make: (n, owner) => tool(n, owner),
      insert: (tx, row) => tx.insertTool(row),
      update: (tx, row) => tx.updateTool(row),
      find: (tx, id) => tx.findTool(id),
    });
    childNames(h, {
      kind: "prompt",
      make: (n, owner) => prompt(n, owner),
      insert: (tx, row) => tx.insertPrompt(row),
      update: (tx, row) => tx.updatePrompt(row),
      find: (tx, id) => tx.findPrompt(id),
    });
    childNames(h, {
      kind: "resource",
      make: (n, owner) => resource(n, owner),
      insert: (tx, row) => tx.insertResource(row),
      update: (tx, row) => tx.updateResource(row),
      find: (tx, id) => tx.findResource(id),
    });
  });
