import { defineEntity, p } from "@mikro-orm/postgresql";
import { id, timestamp } from "./column-types.js";

// Providers and their children (tools, prompts, resources), and the counters kept by triggers on providers.

/**
 * A statement-level trigger on providers that adds the net change of one statement (`delta`: rows of
 * tenant, visibility_type, api_type, ±1 read from its transition tables) to provider_counts: one upsert
 * per group, whatever the number of rows (a row-level trigger would update the same counter row once per
 * provider, quadratic in a bulk insert). Groups are updated in key order, so concurrent statements lock
 * counter rows in the same order.
 */
function providerCountTrigger(event: "insert" | "update" | "delete", transitionTables: string, delta: string) {
  const name = `count_${event}`;
  const fn = `"providers_${name}_fn"`;
  return {
    name,
    timing: "after" as const,
    events: [event],
    forEach: "statement" as const,
    expression: `create or replace function ${fn}() returns trigger as $$ begin
  insert into provider_counts as c (tenant, visibility_type, api_type, n)
    select tenant, visibility_type, api_type, sum(d)::int from (${delta}) as delta (tenant, visibility_type, api_type, d)
    group by tenant, visibility_type, api_type having sum(d) <> 0 order by tenant, visibility_type, api_type
  on conflict (tenant, visibility_type, api_type) do update set n = c.n + excluded.n;
  return null;
end; $$ language plpgsql;
create trigger "${name}" after ${event} on "providers" referencing ${transitionTables} for each statement execute function ${fn}();`,
  };
}

/**
 * A statement-level trigger on providers that stamps the generation of every scope whose listings the
 * statement may have changed (`scopes`: the tenant of each row it touched, and PUBLIC when one of them is or
 * was PUBLIC, since those are in every tenant's listing) with the writing transaction's id: unique for the
 * database's lifetime, so a stamp never comes back after a change, even when rows are deleted and recreated.
 * A reader validates a remembered match count against these stamps in its own statement (tx/providers.ts).
 * Named to fire before the count triggers ("bump" < "count"), so a transaction's first provider write
 * locks its tenant's row first, then PUBLIC's: writers of one tenant queue there, not on counter rows
 * taken in different orders.
 */
function providerGenerationTrigger(event: "insert" | "update" | "delete", transitionTables: string, rows: string) {
  const name = `bump_generation_${event}`;
  const fn = `"providers_${name}_fn"`;
  return {
    name,
    timing: "after" as const,
    events: [event],
    forEach: "statement" as const,
    expression: `create or replace function ${fn}() returns trigger as $$ begin
  insert into provider_generations as g (scope, generation)
    select scope, pg_current_xact_id()::text::bigint from (
      select 'tenant:' || tenant from (${rows}) as r (tenant, visibility_type)
      union select 'PUBLIC' from (${rows}) as r (tenant, visibility_type) where visibility_type = 'PUBLIC'
    ) as s (scope)
    order by scope = 'PUBLIC', scope
  on conflict (scope) do update set generation = excluded.generation;
  return null;
end; $$ language plpgsql;
create trigger "${name}" after ${event} on "providers" referencing ${transitionTables} for each statement execute function ${fn}();`,
  };
}

export const ProviderEntity = defineEntity({
  name: "Provider",
  tableName: "providers",
  properties: {
    id: id().primary(),
    tenant: p.text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    version: p.integer(),
    apiType: p.text(),
    visibilityType: p.text(),
    baseURL: p.text().fieldName("base_url"),
    documentURL: p.text().fieldName("document_url"),
    iconURL: p.text().fieldName("icon_url"),
    secretPrefix: p.text(),
    name: p.text(),
    description: p.text(),
    oauth2Config: p.json<Record<string, unknown>>().nullable().fieldName("oauth2_config"),
  },
  uniques: [{ name: "providers_tenant_name_unique", properties: ["tenant", "name"] }],
  indexes: [
    { name: "providers_tenant_created_at_id_index", properties: ["tenant", "createdAt", "id"] },
    { name: "providers_visibility_created_at_id_index", properties: ["visibilityType", "createdAt", "id"] },
    // The `nameContains` and `baseURLContains` filters are case-insensitive substrings (ILIKE '%…%'): a
    // trigram index (pg_trgm, created by the migration that adds these) finds the candidate rows, so the
    // match count and a filtered page do not read every provider of the tenant.
    {
      name: "providers_name_trgm_index",
      expression: 'create index "providers_name_trgm_index" on "providers" using gin ("name" gin_trgm_ops)',
    },
    {
      name: "providers_base_url_trgm_index",
      expression: 'create index "providers_base_url_trgm_index" on "providers" using gin ("base_url" gin_trgm_ops)',
    },
  ],
  // provider_counts follows every statement that inserts, deletes or re-classifies providers;
  // provider_generations every statement that writes providers at all.
  triggers: [
    providerGenerationTrigger("insert", "new table as changed", "select tenant, visibility_type from changed"),
    providerGenerationTrigger("delete", "old table as changed", "select tenant, visibility_type from changed"),
    providerGenerationTrigger(
      "update",
      "old table as old_rows new table as new_rows",
      "select tenant, visibility_type from new_rows union all select tenant, visibility_type from old_rows",
    ),
    providerCountTrigger("insert", "new table as changed", "select tenant, visibility_type, api_type, 1 from changed"),
    providerCountTrigger("delete", "old table as changed", "select tenant, visibility_type, api_type, -1 from changed"),
    providerCountTrigger(
      "update",
      "old table as old_rows new table as new_rows",
      `select tenant, visibility_type, api_type, 1 from new_rows
       union all select tenant, visibility_type, api_type, -1 from old_rows`,
    ),
  ],
});

/**
 * How many providers each tenant has, per visibility and API type: the exact `matchCount` of an unfiltered
 * (or only `apiType`/`visibility`-filtered) provider listing, and the provider quota, without counting
 * 100,000 rows per request. Kept by the statement-level triggers of `providers` (in the same transaction as
 * the change, so a reader's snapshot sees a count that agrees with the rows); never written by the adapter.
 */
export const ProviderCountEntity = defineEntity({
  name: "ProviderCount",
  tableName: "provider_counts",
  properties: {
    tenant: p.text().primary(),
    visibilityType: p.text().primary(),
    apiType: p.text().primary(),
    n: p.integer(),
  },
  primaryKeys: ["tenant", "visibilityType", "apiType"],
});

/**
 * When the providers a listing can see last changed, per scope: `tenant:<id>` (that tenant's providers)
 * and `PUBLIC` (the PUBLIC providers of every tenant). A viewer's listing depends on exactly its tenant's
 * scope and PUBLIC's. Each value is the id of the transaction that last wrote there (the triggers of
 * `providers`, in that transaction); a scope never written has no row. What lets a remembered substring
 * match count be reused while it is still exact, checked in the reader's snapshot.
 */
export const ProviderGenerationEntity = defineEntity({
  name: "ProviderGeneration",
  tableName: "provider_generations",
  properties: {
    scope: p.text().primary(),
    generation: p.bigint("string"),
  },
});

export const ToolEntity = defineEntity({
  name: "Tool",
  tableName: "tools",
  properties: {
    id: id().primary(),
    provider: () => p.manyToOne(ProviderEntity).deleteRule("cascade").foreignKeyName("tools_provider_id_foreign"),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    method: p.text(),
    path: p.text(),
    name: p.text(),
    title: p.text(),
    description: p.text(),
    pathArgsJSONSchema: p.json<Record<string, unknown>>().nullable().fieldName("path_args_json_schema"),
    queryArgsJSONSchema: p.json<Record<string, unknown>>().nullable().fieldName("query_args_json_schema"),
    reqBodyJSONSchema: p.json<Record<string, unknown>>().nullable().fieldName("req_body_json_schema"),
    reqContentType: p.text().default("application/json").fieldName("req_content_type"),
    reqBodyEncoding: p.json<Record<string, unknown>>().default("{}").fieldName("req_body_encoding"),
    respBodyJSONSchema: p.json<Record<string, unknown>>().nullable().fieldName("resp_body_json_schema"),
    outputSchemaMode: p.text().default("LENIENT").fieldName("output_schema_mode"),
    responseFilter: p.json<Record<string, unknown>>().nullable().fieldName("response_filter"),
    headers: p.json<unknown[]>(),
    oauth2Scopes: p.json<string[]>().fieldName("oauth2_scopes"),
    imported: p.boolean().default(false),
    operationPath: p.text().default("").fieldName("operation_path"),
    longRunning: p.boolean().default(false).fieldName("long_running"),
  },
  uniques: [{ name: "tools_provider_id_name_unique", properties: ["provider", "name"] }],
});

export const PromptEntity = defineEntity({
  name: "Prompt",
  tableName: "prompts",
  properties: {
    id: id().primary(),
    provider: () => p.manyToOne(ProviderEntity).deleteRule("cascade").foreignKeyName("prompts_provider_id_foreign"),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    name: p.text(),
    description: p.text(),
    arguments: p.json<unknown[]>(),
    messages: p.json<unknown[]>(),
  },
  uniques: [{ name: "prompts_provider_id_name_unique", properties: ["provider", "name"] }],
});

export const ResourceEntity = defineEntity({
  name: "Resource",
  tableName: "resources",
  properties: {
    id: id().primary(),
    provider: () => p.manyToOne(ProviderEntity).deleteRule("cascade").foreignKeyName("resources_provider_id_foreign"),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    name: p.text(),
    description: p.text(),
    uri: p.text(),
    mimeType: p.text(),
    size: p.bigint("number"),
    annotations: p.json<Record<string, unknown>>(),
  },
  uniques: [{ name: "resources_provider_id_name_unique", properties: ["provider", "name"] }],
});
