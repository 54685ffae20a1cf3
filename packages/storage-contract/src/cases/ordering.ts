import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { at, prompt, provider, resource, server, serverToken, TENANT_B, tool, variable } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** Where a row of an ordering test sits: its id (after a kind prefix) and creation time. */
interface Slot {
  readonly n: number;
  readonly id: string;
  readonly createdAt: Date;
}

// Inserted in this order. Three rows tie on creation time and must come back by id compared code unit by
// code unit ("B" < "a" < "b", as under PostgreSQL's "C" collation); the earliest row has the largest id
// and the latest the smallest, so the id never outranks the creation time.
const INSERTED = [
  { key: "000000b", createdAt: at(10) },
  { key: "0000000", createdAt: at(30) },
  { key: "000000a", createdAt: at(10) },
  { key: "zzzzzzz", createdAt: at(5) },
  { key: "000000B", createdAt: at(10) },
];
const EXPECTED = ["zzzzzzz", "000000B", "000000a", "000000b", "0000000"];

const slots = (prefix: string): ReadonlyArray<Slot> =>
  INSERTED.map(({ key, createdAt }, i) => ({ n: 100 + i, id: `${prefix}${key}`, createdAt }));

type Listed = ReadonlyArray<{ readonly id: string }>;

/** Lists come in creation order, then id order, and hold only the rows of their owner. */
export const orderingCases = (h: Harness) =>
  describe("list order", () => {
    const p1 = provider(1);
    const p2 = provider(2);

    const lists: ReadonlyArray<readonly [string, string, (slots: ReadonlyArray<Slot>) => Promise<Listed>]> = [
      [
        "tools of a provider",
        "tool",
        async (rows) => {
          await h.seed({
            providers: [p1, p2],
            tools: [tool(1, p2.id), ...rows.map((s) => tool(s.n, p1.id, { id: s.id, createdAt: s.createdAt }))],
          });
          return h.run((tx) => tx.listTools(p1.id));
        },
      ],
      [
        "prompts of a provider",
        "prmt",
        async (rows) => {
          await h.seed({
            providers: [p1, p2],
            prompts: [prompt(1, p2.id), ...rows.map((s) => prompt(s.n, p1.id, { id: s.id, createdAt: s.createdAt }))],
          });
          return h.run((tx) => tx.listPrompts(p1.id));
        },
      ],
      [
        "resources of a provider",
        "rsrc",
        async (rows) => {
          await h.seed({
            providers: [p1, p2],
            resources: [
              resource(1, p2.id),
              ...rows.map((s) => resource(s.n, p1.id, { id: s.id, createdAt: s.createdAt })),
            ],
          });
          return h.run((tx) => tx.listResources(p1.id));
        },
      ],
      [
        "variables of a tenant",
        "vari",
        async (rows) => {
          await h.seed({
            variables: [
              variable(1, { tenant: TENANT_B }),
              ...rows.map((s) => variable(s.n, { id: s.id, createdAt: s.createdAt })),
            ],
          });
          return h.run((tx) => tx.listVariables(p1.tenant));
        },
      ],
      [
        "server graphs of a tenant",
        "serv",
        async (rows) => {
          await h.seed({
            servers: [
              server(1, { tenant: TENANT_B }),
              ...rows.map((s) => server(s.n, { id: s.id, createdAt: s.createdAt })),
            ],
          });
          const graphs = await h.run((tx) => tx.listServerGraphs(p1.tenant));
          return graphs.map((graph) => graph.server);
        },
      ],
      [
        "tokens of a server",
        "tokn",
        async (rows) => {
          const s1 = server(1);
          const s2 = server(2);
          await h.seed({
            servers: [s1, s2],
            serverTokens: [
              serverToken(1, s2.id),
              ...rows.map((s) => serverToken(s.n, s1.id, { id: s.id, createdAt: s.createdAt })),
            ],
          });
          return h.run((tx) => tx.listServerTokens(s1.id));
        },
      ],
    ];

    for (const [what, prefix, list] of lists)
      it(`${what} come by creation time, then id`, async () => {
        const listed = await list(slots(prefix));
        expect(listed.map((row) => row.id)).toEqual(EXPECTED.map((key) => `${prefix}${key}`));
      });

    it("a provider's tools in findProviderWithTools come in the same order", async () => {
      const rows = slots("tool");
      await h.seed({
        providers: [p1],
        tools: rows.map((s) => tool(s.n, p1.id, { id: s.id, createdAt: s.createdAt })),
      });
      const found = await h.run((tx) => Effect.map(tx.findProviderWithTools(p1.id), (f) => f?.tools.map((t) => t.id)));
      expect(found).toEqual(EXPECTED.map((key) => `tool${key}`));
    });
  });
