import { describe, expect, it } from "vitest";
import { at, provider, server, tool } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** The settings of a server's chosen tools and its approval policy (docs/api-rules.md §20). */
export const serverToolSettingsCases = (h: Harness) =>
  describe("per-server tool settings", () => {
    const p1 = provider(1);
    const t1 = tool(1, p1.id);
    const t2 = tool(2, p1.id);
    const pinned = {
      toolId: t2.id,
      alias: "renamed",
      description: "for this server",
      fixedArgs: { pathArgs: { org: "acme" }, bodyArgs: { nested: { a: [1, 2] } } },
      approval: "ALWAYS" as const,
    };

    it("keeps the settings of chosen tools, in the order the tools are chosen, and the approval policy", async () => {
      const row = server(1, {
        approvalPolicy: "WRITES",
        providers: [{ providerId: p1.id, toolIds: [t1.id, t2.id] }],
        toolSettings: [pinned, { toolId: t1.id, alias: "", description: "", fixedArgs: {}, approval: "NEVER" }],
      });
      await h.seed({ providers: [p1], tools: [t1, t2] });
      await h.run((tx) => tx.insertServer(row));
      const stored = await h.read((tx) => tx.findServer(row.id));
      expect(stored?.approvalPolicy).toBe("WRITES");
      expect(stored?.toolSettings).toEqual([
        { toolId: t1.id, alias: "", description: "", fixedArgs: {}, approval: "NEVER" },
        pinned,
      ]);
      expect((await h.read((tx) => tx.findServerGraph(row.id)))?.server).toEqual(stored);
    });

    it("keeps no entry for default settings, nor for tools that are not chosen", async () => {
      const row = server(1, {
        providers: [{ providerId: p1.id, toolIds: [t1.id] }],
        toolSettings: [
          { toolId: t1.id, alias: "", description: "", fixedArgs: {}, approval: "INHERIT" },
          { ...pinned, toolId: t2.id },
        ],
      });
      await h.seed({ providers: [p1], tools: [t1, t2] });
      await h.run((tx) => tx.insertServer(row));
      expect((await h.read((tx) => tx.findServer(row.id)))?.toolSettings).toEqual([]);
    });

    it("an update replaces the settings, and a tool taken out of the server loses them", async () => {
      const row = server(1, {
        providers: [{ providerId: p1.id, toolIds: [t1.id, t2.id] }],
        toolSettings: [pinned],
      });
      await h.seed({ providers: [p1], tools: [t1, t2], servers: [row] });
      const stored = await h.read((tx) => tx.findServer(row.id));
      expect(stored?.toolSettings).toEqual([pinned]);
      const changed = { ...row, version: 2, updatedAt: at(60), toolSettings: [{ ...pinned, alias: "again" }] };
      expect(await h.run((tx) => tx.updateServer(changed, 1))).toBe(true);
      expect((await h.read((tx) => tx.findServer(row.id)))?.toolSettings).toEqual([{ ...pinned, alias: "again" }]);
      const without = { ...changed, version: 3, providers: [{ providerId: p1.id, toolIds: [t1.id] }] };
      expect(await h.run((tx) => tx.updateServer(without, 2))).toBe(true);
      const after = await h.read((tx) => tx.findServer(row.id));
      expect(after?.toolSettings).toEqual([]);
      // Chosen again, the tool starts from the defaults.
      const back = { ...without, version: 4, providers: [{ providerId: p1.id, toolIds: [t1.id, t2.id] }] };
      expect(await h.run((tx) => tx.updateServer({ ...back, toolSettings: after?.toolSettings ?? [] }, 3))).toBe(true);
      expect((await h.read((tx) => tx.findServer(row.id)))?.toolSettings).toEqual([]);
    });
  });
