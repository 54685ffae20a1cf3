import type { ServerGraph } from "@mcpsm/domain/storage";
import { describe, expect, it } from "vitest";
import { MISSING_ID, prompt, provider, resource, server, TENANT_A, TENANT_B, tool } from "../fixtures.js";
import type { Harness } from "../harness.js";

const byId = <T extends { readonly id: string }>(rows: ReadonlyArray<T>) =>
  [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

// The graph's lists promise no order (the domain orders them by the server's own lists), so they are
// compared sorted by id.
const sorted = (graph: ServerGraph | undefined) =>
  graph && {
    server: graph.server,
    providers: byId(graph.providers),
    tools: byId(graph.tools),
    resources: byId(graph.resources),
    prompts: byId(graph.prompts),
  };

const p1 = provider(1);
const p2 = provider(2, { tenant: TENANT_B, visibilityType: "PUBLIC" });
const p3 = provider(3);
const [t1, t2, t3] = [tool(1, p1.id), tool(2, p1.id), tool(3, p1.id)];
const t4 = tool(4, p2.id);
const [r1, r2, r3] = [resource(1, p1.id), resource(2, p2.id), resource(3, p1.id)];
const [q1, q2, q3] = [prompt(1, p1.id), prompt(2, p1.id), prompt(3, p2.id)];
const world = { providers: [p1, p2, p3], tools: [t1, t2, t3, t4], resources: [r1, r2, r3], prompts: [q1, q2, q3] };

const s1 = server(1, {
  providers: [
    { providerId: p2.id, toolIds: [t4.id] },
    { providerId: p1.id, toolIds: [t3.id, t1.id] },
    { providerId: p3.id, toolIds: [] },
  ],
  resourceIds: [r2.id],
  promptIds: [q2.id, q1.id],
});
const s2 = server(2, {
  createdAt: s1.createdAt,
  id: "serv0000000",
  providers: [{ providerId: p1.id, toolIds: [t2.id] }],
});
const s3 = server(3, { tenant: TENANT_B, promptIds: [q3.id] });

/** findServerGraph and listServerGraphs. */
export const serverGraphCases = (h: Harness) =>
  describe("server graphs", () => {
    it("findServerGraph answers the server with its providers and exactly its chosen tools, resources and prompts", async () => {
      await h.seed({ ...world, servers: [s1] });
      expect(sorted(await h.run((tx) => tx.findServerGraph(s1.id)))).toEqual({
        server: s1,
        providers: [p1, p2, p3],
        tools: [t1, t3, t4],
        resources: [r2],
        prompts: [q1, q2],
      });
    });

    it("findServerGraph of a server without links, and of an unknown id", async () => {
      await h.seed({ servers: [server(1)] });
      expect(await h.run((tx) => tx.findServerGraph(server(1).id))).toEqual({
        server: server(1),
        providers: [],
        tools: [],
        resources: [],
        prompts: [],
      });
      expect(await h.run((tx) => tx.findServerGraph(MISSING_ID))).toBeUndefined();
    });

    it("a graph shows the linked records as they are now", async () => {
      await h.seed({ ...world, servers: [s1] });
      const renamed = { ...t1, name: "renamed_tool" };
      await h.run((tx) => tx.updateTool(renamed));
      expect(sorted(await h.run((tx) => tx.findServerGraph(s1.id)))?.tools).toEqual([renamed, t3, t4]);
    });

    it("listServerGraphs answers the tenant's servers only, in creation order then id, as findServerGraph does", async () => {
      await h.seed({ ...world, servers: [s1, s2, s3] });
      const graphs = await h.run((tx) => tx.listServerGraphs(TENANT_A));
      // s2 ties with s1 on creation time and has the smaller id.
      expect(graphs.map((graph) => graph.server.id)).toEqual([s2.id, s1.id]);
      expect(graphs.map(sorted)).toEqual([
        sorted(await h.run((tx) => tx.findServerGraph(s2.id))),
        sorted(await h.run((tx) => tx.findServerGraph(s1.id))),
      ]);
      expect(sorted(graphs[0])).toEqual({ server: s2, providers: [p1], tools: [t2], resources: [], prompts: [] });
      expect((await h.run((tx) => tx.listServerGraphs(TENANT_B))).map(sorted)).toEqual([
        { server: s3, providers: [], tools: [], resources: [], prompts: [q3] },
      ]);
      expect(await h.run((tx) => tx.listServerGraphs("tenant-without-servers"))).toEqual([]);
    });
  });
