import type { ToolSearch } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import type { Operations } from "./operations.js";
import { childOperations, childStatements } from "./provider-children.js";
import { likeContains } from "./providers.js";

/** The text columns a tool search's `contains` looks in. */
const SEARCHED = ["name", "title", "description", "method", "path"];

export const toolOperations: Operations<
  "insertTool" | "updateTool" | "deleteTool" | "findTool" | "listTools" | "searchTools"
> = (tables) => {
  const statements = childStatements(tables.tools, "t");
  const { json, decode } = tables.tools;
  return (ctx) => {
    const tools = childOperations(ctx, "tool", statements);

    // One statement: the match count beside the page. The page's rows are cut (keyset, then limit) in a
    // subquery before their JSON is built, so a page of 50 builds 50 objects whatever the provider holds.
    const searchTools = (search: ToolSearch) => {
      const params: Array<unknown> = [search.providerId];
      const param = (value: unknown) => {
        params.push(value);
        return `$${params.length}`;
      };
      const filters: Array<string> = [];
      if (search.contains !== undefined) {
        const value = param(likeContains(search.contains));
        filters.push(`(${SEARCHED.map((column) => `t.${column} ilike ${value} escape '\\'`).join(" or ")})`);
      }
      const pageFilters = [...filters];
      if (search.after !== undefined) {
        const at = param(search.after.createdAt.toISOString());
        const id = param(search.after.id);
        pageFilters.push(`(t.created_at, t.id) > (${at}::timestamptz, ${id})`);
      }
      const and = (list: ReadonlyArray<string>) => list.map((f) => ` and ${f}`).join("");
      const limit = search.limit === undefined ? "" : ` limit ${param(Math.max(0, Math.floor(search.limit)))}`;
      return Effect.map(
        ctx.rows(
          `select (select count(*) from tools t where t.provider_id = $1${and(filters)})::int as n,
             coalesce((select json_agg(${json("pg")} order by pg.created_at, pg.id)
               from (select * from tools t where t.provider_id = $1${and(pageFilters)}
                     order by t.created_at, t.id${limit}) pg), '[]'::json) as r`,
          params,
        ),
        (result) => {
          const row = result[0] ?? { n: 0, r: [] };
          return { items: (row.r as Array<unknown>).map(decode), matchCount: Number(row.n) };
        },
      );
    };

    return {
      insertTool: tools.insert,
      updateTool: tools.update,
      deleteTool: tools.delete,
      findTool: tools.find,
      listTools: tools.list,
      searchTools,
    };
  };
};
