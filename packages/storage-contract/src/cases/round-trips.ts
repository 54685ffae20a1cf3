import type { StorageTx, VariableRow } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import {
  at,
  MISSING_ID,
  prompt,
  promptId,
  provider,
  providerId,
  resource,
  resourceId,
  scribble,
  server,
  serverId,
  serverToken,
  TENANT_A,
  TENANT_B,
  tool,
  toolId,
  variable,
  variableId,
} from "../fixtures.js";
import type { Harness, Seed } from "../harness.js";

/** How to write and read one record kind. */
interface KindCase<Row extends { readonly id: string }> {
  readonly kind: string;
  /** The records it needs (its provider or server). */
  readonly parents: Seed;
  readonly row: Row;
  readonly insert: (tx: StorageTx, row: Row) => Effect.Effect<void, unknown>;
  readonly find: (tx: StorageTx, id: string) => Effect.Effect<Row | undefined>;
  readonly remove: (tx: StorageTx, id: string) => Effect.Effect<void, unknown>;
  /** A changed row and how to store it; absent for kinds without updates. */
  readonly update?: {
    readonly changed: Row;
    readonly write: (tx: StorageTx, row: Row) => Effect.Effect<unknown, unknown>;
  };
}

const roundTrip = <Row extends { readonly id: string }>(h: Harness, c: KindCase<Row>) => {
  it(`${c.kind}: insert, find, update and delete round-trip equal rows`, async () => {
    await h.seed(c.parents);
    const row = structuredClone(c.row);
    await h.run((tx) => c.insert(tx, row));
    expect(await h.run((tx) => c.find(tx, c.row.id))).toEqual(c.row);
    if (c.update !== undefined) {
      const { changed, write } = c.update;
      await h.run((tx) => write(tx, structuredClone(changed)));
      expect(await h.run((tx) => c.find(tx, c.row.id))).toEqual(changed);
    }
    await h.run((tx) => c.remove(tx, c.row.id));
    expect(await h.run((tx) => c.find(tx, c.row.id))).toBeUndefined();
  });

  it(`${c.kind}: the store shares no object with the caller`, async () => {
    await h.seed(c.parents);
    const row = structuredClone(c.row);
    await h.run((tx) => c.insert(tx, row));
    scribble(row);
    const found = await h.run((tx) => c.find(tx, c.row.id));
    expect(found).toEqual(c.row);
    scribble(found);
    expect(await h.run((tx) => c.find(tx, c.row.id))).toEqual(c.row);
    const { update } = c;
    if (update !== undefined) {
      const changed = structuredClone(update.changed);
      await h.run((tx) => update.write(tx, changed));
      scribble(changed);
      expect(await h.run((tx) => c.find(tx, c.row.id))).toEqual(update.changed);
    }
  });
};

/** Insert/find/update/delete of every record kind, copies in and out, and what updates may not change. */
export const roundTripCases = (h: Harness) =>
  describe("round trips", () => {
    const p1 = provider(1);
    const p2 = provider(2);
    const t1 = tool(1, p1.id);
    const t2 = tool(2, p1.id);
    const q1 = prompt(1, p1.id);
    const r1 = resource(1, p1.id);
    const s1 = server(1);

    roundTrip(h, {
      kind: "provider",
      parents: {},
      row: p1,
      insert: (tx, row) => tx.insertProvider(row),
      find: (tx, id) => tx.findProvider(id),
      remove: (tx, id) => tx.deleteProvider(id),
      update: {
        changed: {
          ...p1,
          version: 2,
          updatedAt: at(50),
          visibilityType: "PUBLIC",
          name: "renamed provider",
          baseURL: "https://renamed.example.com",
          oauth2Config: null,
        },
        write: (tx, row) => tx.updateProvider(row, 1),
      },
    });

    roundTrip(h, {
      kind: "tool",
      parents: { providers: [p1] },
      row: t1,
      insert: (tx, row) => tx.insertTool(row),
      find: (tx, id) => tx.findTool(id),
      remove: (tx, id) => tx.deleteTool(id),
      update: {
        changed: {
          ...t1,
          updatedAt: at(50),
          method: "POST",
          path: "/items",
          name: "renamed_tool",
          pathArgsJSONSchema: null,
          queryArgsJSONSchema: { type: "object", properties: { q: { type: "string" } } },
          headers: [],
          oauth2Scopes: ["admin"],
          imported: true,
          operationPath: "/items?archived#list",
          longRunning: true,
        },
        write: (tx, row) => tx.updateTool(row),
      },
    });

    roundTrip(h, {
      kind: "prompt",
      parents: { providers: [p1] },
      row: q1,
      insert: (tx, row) => tx.insertPrompt(row),
      find: (tx, id) => tx.findPrompt(id),
      remove: (tx, id) => tx.deletePrompt(id),
      update: {
        changed: {
          ...q1,
          updatedAt: at(50),
          name: "renamed_prompt",
          arguments: [],
          messages: [
            { role: "user", content: { type: "text", text: "Hello" } },
            { role: "assistant", content: { type: "text", text: "Hi" } },
          ],
        },
        write: (tx, row) => tx.updatePrompt(row),
      },
    });

    roundTrip(h, {
      kind: "resource",
      parents: { providers: [p1] },
      row: r1,
      insert: (tx, row) => tx.insertResource(row),
      find: (tx, id) => tx.findResource(id),
      remove: (tx, id) => tx.deleteResource(id),
      update: {
        changed: { ...r1, updatedAt: at(50), name: "renamed-resource", mimeType: "", size: 0, annotations: {} },
        write: (tx, row) => tx.updateResource(row),
      },
    });

    roundTrip<VariableRow>(h, {
      kind: "variable",
      parents: {},
      row: variable(1),
      insert: (tx, row) => tx.insertVariable(row),
      find: (tx, id) => tx.findVariable(id),
      remove: (tx, id) => tx.deleteVariable(id),
      update: {
        changed: { ...variable(1), updatedAt: at(50), type: "SECRET", value: "v1:key1:cipher" },
        write: (tx, row) => tx.updateVariable(row),
      },
    });

    roundTrip(h, {
      kind: "server",
      parents: { providers: [p1, p2], tools: [t1, t2], prompts: [q1], resources: [r1] },
      // Link lists keep the order the client gave, not creation order.
      row: server(1, {
        providers: [
          { providerId: p2.id, toolIds: [] },
          { providerId: p1.id, toolIds: [t2.id, t1.id] },
        ],
        resourceIds: [r1.id],
        promptIds: [q1.id],
      }),
      insert: (tx, row) => tx.insertServer(row),
      find: (tx, id) => tx.findServer(id),
      remove: (tx, id) => tx.deleteServer(id),
      update: {
        changed: server(1, {
          version: 2,
          updatedAt: at(50),
          name: "renamed server",
          description: "",
          requestHeadersProxyEnabled: false,
          dynamicToolDiscoveryEnabled: true,
          providers: [{ providerId: p1.id, toolIds: [t1.id] }],
          resourceIds: [],
          promptIds: [q1.id],
        }),
        write: (tx, row) => tx.updateServer(row, 1),
      },
    });

    roundTrip(h, {
      kind: "serverToken",
      parents: { servers: [s1] },
      row: serverToken(1, s1.id),
      insert: (tx, row) => tx.insertServerToken(row),
      find: (tx, id) => tx.findServerToken(id),
      remove: (tx, id) => tx.deleteServerToken(id),
    });

    it("a token that never expires round-trips its null expiry", async () => {
      const token = serverToken(2, s1.id, { expiresAt: null });
      await h.seed({ servers: [s1], serverTokens: [token] });
      expect(await h.run((tx) => tx.findServerToken(token.id))).toEqual(token);
    });

    it("rows inside lists, graphs and search pages are copies too", async () => {
      const linked = server(1, {
        providers: [{ providerId: p1.id, toolIds: [t1.id] }],
        resourceIds: [r1.id],
        promptIds: [q1.id],
      });
      await h.seed({
        providers: [p1],
        tools: [t1],
        prompts: [q1],
        resources: [r1],
        variables: [variable(1)],
        servers: [linked],
      });
      await h.run((tx) =>
        Effect.gen(function* () {
          scribble(yield* tx.listTools(p1.id));
          scribble(yield* tx.listPrompts(p1.id));
          scribble(yield* tx.listResources(p1.id));
          scribble(yield* tx.listVariables(TENANT_A));
          scribble(yield* tx.findProviderWithTools(p1.id));
          scribble(yield* tx.findServerGraph(linked.id));
          scribble(yield* tx.listServerGraphs(TENANT_A));
          scribble(yield* tx.searchProviders({ viewerTenant: TENANT_A, limit: 10 }));
        }),
      );
      expect(await h.run((tx) => tx.findServerGraph(linked.id))).toEqual({
        server: linked,
        providers: [p1],
        tools: [t1],
        resources: [r1],
        prompts: [q1],
      });
      expect(await h.run((tx) => tx.findVariable(variableId(1)))).toEqual(variable(1));
    });

    it("find answers undefined for an unknown id", async () => {
      await h.seed({ providers: [p1], servers: [s1] });
      const found = await h.run((tx) =>
        Effect.all([
          tx.findProvider(MISSING_ID),
          tx.findProviderWithTools(MISSING_ID),
          tx.findTool(MISSING_ID),
          tx.findPrompt(MISSING_ID),
          tx.findResource(MISSING_ID),
          tx.findVariable(MISSING_ID),
          tx.findServer(MISSING_ID),
          tx.findServerGraph(MISSING_ID),
          tx.findServerToken(MISSING_ID),
          tx.findServerTokenByHash("0".repeat(64)),
        ]),
      );
      expect(found).toEqual(Array(10).fill(undefined));
    });

    it("deleting a missing record is a no-op", async () => {
      await h.seed({ providers: [p1], tools: [t1], servers: [s1] });
      await h.run((tx) =>
        Effect.gen(function* () {
          yield* tx.deleteProvider(MISSING_ID);
          yield* tx.deleteTool(MISSING_ID);
          yield* tx.deletePrompt(MISSING_ID);
          yield* tx.deleteResource(MISSING_ID);
          yield* tx.deleteVariable(MISSING_ID);
          yield* tx.deleteServer(MISSING_ID);
          yield* tx.deleteServerToken(MISSING_ID);
        }),
      );
      expect(await h.run((tx) => tx.findTool(t1.id))).toEqual(t1);
      expect(await h.run((tx) => tx.findServer(s1.id))).toEqual(s1);
    });

    it("updating a missing record stores nothing", async () => {
      await h.seed({ providers: [p1] });
      const applied = await h.run((tx) =>
        Effect.gen(function* () {
          yield* tx.updateTool(tool(9, p1.id));
          yield* tx.updatePrompt(prompt(9, p1.id));
          yield* tx.updateResource(resource(9, p1.id));
          yield* tx.updateVariable(variable(9));
          return [yield* tx.updateProvider(provider(9), 1), yield* tx.updateServer(server(9), 1)];
        }),
      );
      expect(applied).toEqual([false, false]);
      const found = await h.run((tx) =>
        Effect.all([
          tx.findTool(toolId(9)),
          tx.findPrompt(promptId(9)),
          tx.findResource(resourceId(9)),
          tx.findVariable(variableId(9)),
          tx.findProvider(providerId(9)),
          tx.findServer(serverId(9)),
        ]),
      );
      expect(found).toEqual(Array(6).fill(undefined));
    });

    // Ownership and creation time are fixed at insert: updates cannot move a record to another tenant,
    // provider or position in the lists. updateVariable cannot report a name clash, so it cannot rename.
    it("updates keep the stored owner, creation time and variable name", async () => {
      await h.seed({
        providers: [p1, p2],
        tools: [t1],
        prompts: [q1],
        resources: [r1],
        variables: [variable(1)],
        servers: [s1],
      });
      await h.run((tx) =>
        Effect.gen(function* () {
          yield* tx.updateProvider({ ...p1, tenant: TENANT_B, createdAt: at(99), version: 2 }, 1);
          yield* tx.updateTool({ ...t1, providerId: p2.id, createdAt: at(99) });
          yield* tx.updatePrompt({ ...q1, providerId: p2.id, createdAt: at(99) });
          yield* tx.updateResource({ ...r1, providerId: p2.id, createdAt: at(99) });
          yield* tx.updateVariable({
            ...variable(1),
            tenant: TENANT_B,
            name: "OTHER",
            createdAt: at(99),
            value: "new",
          });
          yield* tx.updateServer({ ...s1, tenant: TENANT_B, createdAt: at(99), version: 2 }, 1);
        }),
      );
      const stored = await h.run((tx) =>
        Effect.all([
          tx.findProvider(p1.id),
          tx.findTool(t1.id),
          tx.findPrompt(q1.id),
          tx.findResource(r1.id),
          tx.findVariable(variableId(1)),
          tx.findServer(s1.id),
        ]),
      );
      expect(stored).toEqual([
        { ...p1, version: 2 },
        t1,
        q1,
        r1,
        { ...variable(1), value: "new" },
        { ...s1, version: 2 },
      ]);
      expect(await h.run((tx) => tx.listTools(p1.id))).toEqual([t1]);
      expect(await h.run((tx) => tx.countProviders(TENANT_B))).toBe(0);
    });
  });
