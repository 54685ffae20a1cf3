import type { ProviderRow, ToolRow } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import type { Operations } from "./operations.js";

// The providers and tools a server write names, in one statement (one round trip fewer than a statement for
// each table): the rows of both tables in one result, each tagged with its table.

export const providerToolLookupOperations: Operations<"findProvidersAndTools"> = (tables) => {
  const { providers, tools } = tables;
  const sql = `select 0 as k, ${providers.json("p")} as r from providers p where p.id = any($1::text[])
    union all
    select 1 as k, ${tools.json("t")} as r from tools t where t.id = any($2::text[])`;
  return (ctx) => ({
    findProvidersAndTools: (providerIds, toolIds) =>
      providerIds.length === 0 && toolIds.length === 0
        ? Effect.succeed({ providers: [], tools: [] })
        : Effect.map(ctx.rows(sql, [providerIds, toolIds]), (rows) => {
            const found = { providers: [] as Array<ProviderRow>, tools: [] as Array<ToolRow> };
            for (const row of rows)
              if (row.k === 0) found.providers.push(providers.decode(row.r));
              else found.tools.push(tools.decode(row.r));
            return found;
          }),
  });
};
