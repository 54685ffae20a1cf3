import type { ProviderRow, ToolRow, VariableRow } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import type { Operations } from "./operations.js";

// The providers and tools a server write names, in one statement (one round trip fewer than a statement for
// each table): the rows of both tables in one result, each tagged with its table. Asked with a tenant, the
// same statement also brings that tenant's variables the found tools' headers name (what the write's
// revision shows, docs/api-rules.md §21), so no read of them waits under the quota lock.

// `variablesReferencedBy` in SQL: every `${…}` of a header value whose content is a variable name.
const NAMED_BY_HEADERS = `select m[1] from tools t
      cross join lateral jsonb_array_elements(t.headers) h
      cross join lateral regexp_matches(h ->> 'value', '\\$\\{([^}]*)\\}', 'g') m
      where t.id = any($2::text[]) and m[1] ~ '^[A-Za-z_][A-Za-z0-9_]{0,127}$'`;

export const providerToolLookupOperations: Operations<"findProvidersAndTools"> = (tables) => {
  const { providers, tools, variables } = tables;
  const sql = `select 0 as k, ${providers.json("p")} as r from providers p where p.id = any($1::text[])
    union all
    select 1 as k, ${tools.json("t")} as r from tools t where t.id = any($2::text[])`;
  const withVariables = `${sql}
    union all
    select 2 as k, ${variables.json("v")} as r from variables v
      where v.tenant = $3 and v.name in (${NAMED_BY_HEADERS})`;
  return (ctx) => ({
    findProvidersAndTools: (providerIds, toolIds, variablesOf) =>
      providerIds.length === 0 && toolIds.length === 0
        ? Effect.succeed(
            variablesOf === undefined ? { providers: [], tools: [] } : { providers: [], tools: [], variables: [] },
          )
        : Effect.map(
            // A lock-free read: the first statement of a server create, it runs before the transaction takes
            // its connection (Runner.readAhead).
            ctx.readAhead(
              variablesOf === undefined ? sql : withVariables,
              variablesOf === undefined ? [providerIds, toolIds] : [providerIds, toolIds, variablesOf],
              // Planning this statement cost PostgreSQL as much CPU as running it (docs/performance.md, issue 32).
              true,
            ),
            (rows) => {
              const found = {
                providers: [] as Array<ProviderRow>,
                tools: [] as Array<ToolRow>,
                variables: [] as Array<VariableRow>,
              };
              for (const row of rows)
                if (row.k === 0) found.providers.push(providers.decode(row.r));
                else if (row.k === 1) found.tools.push(tools.decode(row.r));
                else found.variables.push(variables.decode(row.r));
              return variablesOf === undefined ? { providers: found.providers, tools: found.tools } : found;
            },
          ),
  });
};
