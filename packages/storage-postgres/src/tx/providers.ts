import type { ProviderSearch } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { insertRow, updateRowIfVersion } from "../table/table.js";
import { uniqueBreach } from "./breaches.js";
import { deleteHeld } from "./delete-held.js";
import type { Operations } from "./operations.js";

/** `text` for LIKE that matches `part` literally: the wildcards %, _ and the escape \ are escaped. */
export const likeContains = (part: string) => `%${part.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const providerOperations: Operations<
  | "insertProvider"
  | "updateProvider"
  | "deleteProvider"
  | "findProvider"
  | "findProviderWithTools"
  | "searchProviders"
  | "countProviders"
> = (tables) => {
  const { providers } = tables;
  const { providerWithTools } = tables.graphs;
  const insert = insertRow(providers);
  // One compare-and-set statement; the tenant, creation time and secret prefix stay as stored.
  const update = updateRowIfVersion(providers, ["tenant", "createdAt", "secretPrefix"]);
  const find = `select ${providers.json("p")} as r from providers p where p.id = $1`;
  const findWithTools = `select ${providerWithTools.json("p")} as r from providers p where p.id = $1`;

  return (ctx) => {
    const { runner } = ctx;

    const searchProviders = (search: ProviderSearch) => {
      const params: Array<unknown> = [];
      const param = (value: unknown) => {
        params.push(value);
        return `$${params.length}`;
      };
      const filters = [`(p.tenant = ${param(search.viewerTenant)} or p.visibility_type = 'PUBLIC')`];
      if (search.nameContains !== undefined)
        filters.push(`p.name ilike ${param(likeContains(search.nameContains))} escape '\\'`);
      if (search.baseURLContains !== undefined)
        filters.push(`p.base_url ilike ${param(likeContains(search.baseURLContains))} escape '\\'`);
      if (search.apiType !== undefined) filters.push(`p.api_type = ${param(search.apiType)}`);
      if (search.visibility !== undefined) filters.push(`p.visibility_type = ${param(search.visibility)}`);
      const where = filters.join(" and ");
      const after =
        search.after === undefined
          ? ""
          : `and (p.created_at, p.id) > (${param(search.after.createdAt.toISOString())}::timestamptz, ${param(search.after.id)})`;
      const limit = param(Math.max(0, Math.floor(search.limit)));
      // One statement: the page (keyset on (created_at, id), with each provider's tools) and the match count.
      return Effect.map(
        ctx.rows(
          `select (select count(*) from providers p where ${where})::int as n,
             coalesce((select json_agg(${providerWithTools.json("pg")} order by pg.created_at, pg.id)
               from (select p.* from providers p where ${where} ${after}
                     order by p.created_at, p.id limit ${limit}) pg), '[]'::json) as r`,
          params,
        ),
        (result) => {
          const row = result[0] ?? { n: 0, r: [] };
          return { items: (row.r as Array<unknown>).map(providerWithTools.decode), matchCount: Number(row.n) };
        },
      );
    };

    return {
      insertProvider: (row) =>
        runner.guarded(
          runner
            .rows(insert.sql, insert.params(row))
            .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", uniqueBreach(row.name))),
        ),
      updateProvider: (row, expectedVersion) =>
        runner.guarded(
          runner.rows(update.sql, update.params(row, expectedVersion)).pipe(
            Effect.map((result) => result.length > 0),
            Effect.catchTag("ConstraintBreach", uniqueBreach(row.name)),
          ),
        ),
      deleteProvider: (id) => deleteHeld(ctx, "providers", "provider", id),
      findProvider: (id) => ctx.one(find, [id], providers.decode),
      findProviderWithTools: (id) => ctx.one(findWithTools, [id], providerWithTools.decode),
      searchProviders,
      countProviders: (tenant) => ctx.count("select count(*)::int as n from providers where tenant = $1", [tenant]),
    };
  };
};
