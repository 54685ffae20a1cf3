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
      const tenant = param(search.viewerTenant);
      const contains = search.nameContains !== undefined || search.baseURLContains !== undefined;
      // The filters, as SQL on a table aliased `a` (providers, or provider_counts for the enum filters).
      const enumFilters: Array<(a: string) => string> = [];
      if (search.apiType !== undefined) {
        const value = param(search.apiType);
        enumFilters.push((a) => `${a}.api_type = ${value}`);
      }
      if (search.visibility !== undefined) {
        const value = param(search.visibility);
        enumFilters.push((a) => `${a}.visibility_type = ${value}`);
      }
      const filters = [...enumFilters];
      if (search.nameContains !== undefined) {
        const value = param(likeContains(search.nameContains));
        filters.push((a) => `${a}.name ilike ${value} escape '\\'`);
      }
      if (search.baseURLContains !== undefined) {
        const value = param(likeContains(search.baseURLContains));
        filters.push((a) => `${a}.base_url ilike ${value} escape '\\'`);
      }
      const and = (list: ReadonlyArray<(a: string) => string>, a: string) => list.map((f) => ` and ${f(a)}`).join("");
      const pageFilters = [...filters];
      if (search.after !== undefined) {
        const at = param(search.after.createdAt.toISOString());
        const id = param(search.after.id);
        pageFilters.push((a) => `(${a}.created_at, ${a}.id) > (${at}::timestamptz, ${id})`);
      }
      const rows = Math.max(0, Math.floor(search.limit));
      const limit = param(rows);
      // Each branch's own limit is written into the text, rounded up to a power of two (few texts): with the
      // limit a parameter PostgreSQL's generic plan guessed 10% of the tenant, so the prepared statement was
      // planned again on every run. The page's limit stays a parameter; a branch never yields more rows.
      const branchLimit = 2 ** Math.ceil(Math.log2(Math.max(1, rows)));
      // The page: what the viewer sees is its own providers and other tenants' PUBLIC ones, two disjoint sets
      // that each walk an index in page order ((tenant, created_at, id) and (visibility_type, created_at,
      // id)) and stop after `limit` rows; the page is the first `limit` of both. (One scan with `tenant = $1
      // or visibility_type = 'PUBLIC'` cannot use either index's order: it sorted the whole tenant.)
      const branches = [
        `select p.* from providers p where p.tenant = ${tenant}${and(pageFilters, "p")}
           order by p.created_at, p.id limit ${branchLimit}`,
        ...(search.visibility === "INTERNAL"
          ? []
          : [
              `select p.* from providers p where p.visibility_type = 'PUBLIC' and p.tenant <> ${tenant}${and(pageFilters, "p")}
                 order by p.created_at, p.id limit ${branchLimit}`,
            ]),
      ];
      // The match count, exact: without a substring filter it adds up provider_counts (kept by triggers in
      // the writing transaction, read in this statement's snapshot: it agrees with the page); with one, it
      // counts the matches, which the trigram indexes find without reading the rest of the tenant — unless
      // this instance remembers the count for these filters and the generations of the viewer's tenant and
      // of PUBLIC, read here in the same snapshot, say nothing it counts has changed since.
      const visible = (a: string) => `(${a}.tenant = ${tenant} or ${a}.visibility_type = 'PUBLIC')`;
      if (!contains)
        return Effect.map(
          page(
            `select coalesce(sum(c.n), 0)::int as n, null::text as g from provider_counts c where ${visible("c")}${and(enumFilters, "c")}`,
          ),
          (result) => result.page,
        );
      const cache = runner.matchCounts;
      const key = JSON.stringify([
        search.viewerTenant,
        search.nameContains,
        search.baseURLContains,
        search.apiType,
        search.visibility,
      ]);
      const known = cache?.lookup(key);
      const knownGenerations = param(known?.generations ?? "");
      const knownCount = param(known?.n ?? 0);
      const generation = (scope: string) =>
        `coalesce((select x.generation from provider_generations x where x.scope = ${scope}), 0)`;
      // The count is an uncorrelated subquery (an InitPlan): PostgreSQL runs it only if the CASE needs it.
      return Effect.map(
        page(
          `select case when s.g = ${knownGenerations} then ${knownCount}::int
                  else (select count(*) from providers p where ${visible("p")}${and(filters, "p")})::int end as n, s.g
           from (select ${generation(`'tenant:' || ${tenant}`)} || ':' || ${generation("'PUBLIC'")} as g) s`,
        ),
        (result) => {
          if (cache !== undefined && typeof result.generations === "string") {
            if (result.generations === known?.generations) cache.reused++;
            else {
              cache.counted++;
              cache.store(key, { generations: result.generations, n: result.matchCount });
            }
          }
          return result.page;
        },
      );

      /** One statement: `counting` (a query answering one row of `n` and `g`) beside the page. */
      function page(counting: string) {
        return Effect.map(
          ctx.rows(
            `select c.n, c.g,
               coalesce((select json_agg(${providerWithTools.json("pg")} order by pg.created_at, pg.id)
                 from (select * from (${branches.map((b) => `(${b})`).join(" union all ")}) u
                       order by u.created_at, u.id limit ${limit}) pg), '[]'::json) as r
             from (${counting}) c`,
            params,
            // Prepared: its planning cost a third of its CPU. Not with a substring filter, whose plan (trigram
            // index or not) depends on the pattern's value.
            !contains,
          ),
          (result) => {
            const row = result[0] ?? { n: 0, g: null, r: [] };
            const matchCount = Number(row.n);
            return {
              page: { items: (row.r as Array<unknown>).map(providerWithTools.decode), matchCount },
              matchCount,
              generations: row.g,
            };
          },
        );
      }
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
      // provider_counts holds each tenant's count (kept by the providers triggers): no scan of the tenant.
      countProviders: (tenant) =>
        ctx.count("select coalesce(sum(n), 0)::int as n from provider_counts where tenant = $1", [tenant]),
    };
  };
};
