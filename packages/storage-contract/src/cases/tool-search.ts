import type { ToolSearch } from "@mcpsm/domain/storage";
import { beforeEach, describe, expect, it } from "vitest";
import { at, provider, providerId, tool, toolId } from "../fixtures.js";
import type { Harness } from "../harness.js";

// One provider's tools, with texts that each field of the search must find (and LIKE wildcards that must
// stay literal), two tools created at the same millisecond (the id breaks the tie), and another provider's
// tool that no search of the first may return.
const owner = provider(1);
const other = provider(2);
const tools = [
  tool(1, owner.id, { name: "list_issues", title: "List issues", description: "Lists the **issues**" }),
  tool(2, owner.id, { name: "get_repo", title: "Repository", description: "One repo", path: "/repos/{owner}" }),
  tool(3, owner.id, { name: "create_issue", method: "POST", title: "", description: "Opens an ISSUE" }),
  tool(4, owner.id, { name: "usage_100%", title: "usageX1000", createdAt: at(10), description: "percent" }),
  tool(5, owner.id, { id: "tool000000A", name: "usage_1000", createdAt: at(10), description: "no percent" }),
  tool(6, other.id, { name: "list_issues", title: "List issues" }),
];
const ownTools = tools.filter((row) => row.providerId === owner.id);
const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((row) => row.id);

/** searchTools: one provider's tools in list order, a substring over five fields, keyset pages, match count. */
export const toolSearchCases = (h: Harness) =>
  describe("searchTools", () => {
    beforeEach(() => h.seed({ providers: [owner, other], tools }));

    const search = async (query: Partial<ToolSearch>) => {
      const page = await h.read((tx) => tx.searchTools({ providerId: owner.id, ...query }));
      return { ids: ids(page.items), matchCount: page.matchCount };
    };

    it("without a limit answers every tool of the provider in list order, as listTools does", async () => {
      const listed = await h.read((tx) => tx.listTools(owner.id));
      expect(await search({})).toEqual({ ids: ids(listed), matchCount: 5 });
      expect(ids(listed)).toEqual(ids(ownTools));
      // The rows are whole: every field as stored.
      expect((await h.read((tx) => tx.searchTools({ providerId: owner.id, limit: 1 }))).items).toEqual([tools[0]]);
      expect(await h.read((tx) => tx.searchTools({ providerId: providerId(9) }))).toEqual({ items: [], matchCount: 0 });
    });

    it("contains matches name, title, description, method or path, ignoring case, literally", async () => {
      expect(await search({ contains: "ISSUE" })).toEqual({ ids: [toolId(1), toolId(3)], matchCount: 2 });
      expect(await search({ contains: "repository" })).toEqual({ ids: [toolId(2)], matchCount: 1 });
      expect(await search({ contains: "/repos/{OWNER}" })).toEqual({ ids: [toolId(2)], matchCount: 1 });
      expect(await search({ contains: "post" })).toEqual({ ids: [toolId(3)], matchCount: 1 });
      expect(await search({ contains: "**issues**" })).toEqual({ ids: [toolId(1)], matchCount: 1 });
      // `%` and `_` are not wildcards: "100%" is not found in "usage_1000", nor "e_1000" in "usageX1000".
      expect(await search({ contains: "100%" })).toEqual({ ids: [toolId(4)], matchCount: 1 });
      expect(await search({ contains: "e_1000" })).toEqual({ ids: ["tool000000A"], matchCount: 1 });
      expect(await search({ contains: "nothing like it" })).toEqual({ ids: [], matchCount: 0 });
    });

    it("pages after a cursor (creation time, then id) with a limit; matchCount counts every page", async () => {
      expect(await search({ limit: 2 })).toEqual({ ids: ids(ownTools.slice(0, 2)), matchCount: 5 });
      expect(await search({ after: { createdAt: at(2), id: toolId(2) }, limit: 2 })).toEqual({
        ids: ids(ownTools.slice(2, 4)),
        matchCount: 5,
      });
      // Tied creation times: the id decides ("tool0000004" before "tool000000A").
      expect(await search({ after: { createdAt: at(10), id: toolId(4) } })).toEqual({
        ids: ["tool000000A"],
        matchCount: 5,
      });
      expect(await search({ after: { createdAt: at(10), id: "tool000000A" } })).toEqual({ ids: [], matchCount: 5 });
      expect(await search({ contains: "issue", after: { createdAt: at(1), id: toolId(1) }, limit: 1 })).toEqual({
        ids: [toolId(3)],
        matchCount: 2,
      });
    });

    it("paging with the last item as cursor visits every match once, in order", async () => {
      const seen: Array<string> = [];
      let after: ToolSearch["after"];
      for (let page = 0; page < 10; page++) {
        const { items, matchCount } = await h.read((tx) => tx.searchTools({ providerId: owner.id, after, limit: 2 }));
        expect(matchCount).toBe(5);
        const last = items.at(-1);
        if (last === undefined) break;
        seen.push(...ids(items));
        after = { createdAt: last.createdAt, id: last.id };
      }
      expect(seen).toEqual(ids(ownTools));
    });
  });
