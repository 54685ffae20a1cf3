import { defineEntity, p } from "@mikro-orm/postgresql";
import { AuditEventEntity } from "./audit-event-entity.js";
import { GitConnectionEntity } from "./git-entities.js";
import { OAuthServerRecordEntity } from "./oauth-server-record-entity.js";
import { ApprovalEntity } from "./approval-entity.js";

// The relational mapping of the stored records, and the one description of each table: the committed
// migrations are generated from it (a test proves that migrating produces exactly this: an empty schema
// diff), and the adapter derives its SQL from its metadata (src/table): the columns an insert writes and an
// update sets, and the JSON object a read builds, which the domain's row schema then decodes. So a property
// is named as the field of the domain row it stores (`baseURL`), and a reference `provider` stores the
// row's `providerId`. The entity types never reach the domain, which stays free of ORM concerns.
//
// Conventions:
// - ids are `text COLLATE "C"`: byte order, so "creation time, then id" sorts exactly as the in-memory
//   adapter's string comparison does, whatever the database's default collation is.
// - timestamps are `timestamptz(3)`: the domain keeps millisecond precision.
// - JSON documents (schemas, headers, scopes, annotations, prompt arguments and messages) are `jsonb`.
// - every reference is a foreign key. Children of a provider go with it (ON DELETE CASCADE); the links of
//   a server go with the server, but hold what they point at (ON DELETE RESTRICT), so deleting a provider,
//   tool, prompt or resource that a server uses fails in the database itself.

const id = () => p.text().collation("C");
const timestamp = () => p.datetime(3);

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
    headers: p.json<unknown[]>(),
    oauth2Scopes: p.json<string[]>().fieldName("oauth2_scopes"),
    imported: p.boolean().default(false),
    operationPath: p.text().default("").fieldName("operation_path"),
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

export const VariableEntity = defineEntity({
  name: "Variable",
  tableName: "variables",
  properties: {
    id: id().primary(),
    tenant: p.text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    type: p.text(),
    name: p.text(),
    value: p.text(),
  },
  uniques: [{ name: "variables_tenant_name_unique", properties: ["tenant", "name"] }],
  indexes: [{ name: "variables_tenant_created_at_id_index", properties: ["tenant", "createdAt", "id"] }],
});

export const ServerEntity = defineEntity({
  name: "Server",
  tableName: "servers",
  properties: {
    id: id().primary(),
    tenant: p.text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    version: p.integer(),
    name: p.text(),
    description: p.text(),
    requestHeadersProxyEnabled: p.boolean(),
    dynamicToolDiscoveryEnabled: p.boolean(),
    // The git connection the server is pushed through (docs/api-rules.md §17); deleting it unsets it here.
    gitConnection: () =>
      p
        .manyToOne(GitConnectionEntity)
        .nullable()
        .deleteRule("set null")
        .foreignKeyName("servers_git_connection_id_foreign"),
    gitRepoFullName: p.text().nullable(),
    // Which calls wait for a person's approval (docs/api-rules.md §20).
    approvalPolicy: p.text().default("NONE"),
  },
  uniques: [{ name: "servers_tenant_name_unique", properties: ["tenant", "name"] }],
  indexes: [{ name: "servers_tenant_created_at_id_index", properties: ["tenant", "createdAt", "id"] }],
  // server_counts follows every statement that inserts or deletes servers (a server's tenant never changes).
  triggers: [
    serverCountTrigger("insert", "new table as changed", "select tenant, 1 from changed"),
    serverCountTrigger("delete", "old table as changed", "select tenant, -1 from changed"),
  ],
});

/**
 * A statement-level trigger on servers that adds the net change of one statement (`delta`: rows of tenant,
 * ±1 read from its transition tables) to server_counts: one upsert per tenant, in tenant order.
 */
function serverCountTrigger(event: "insert" | "delete", transitionTables: string, delta: string) {
  const name = `count_${event}`;
  const fn = `"servers_${name}_fn"`;
  return {
    name,
    timing: "after" as const,
    events: [event],
    forEach: "statement" as const,
    expression: `create or replace function ${fn}() returns trigger as $$ begin
  insert into server_counts as c (tenant, n)
    select tenant, sum(d)::int from (${delta}) as delta (tenant, d)
    group by tenant having sum(d) <> 0 order by tenant
  on conflict (tenant) do update set n = c.n + excluded.n;
  return null;
end; $$ language plpgsql;
create trigger "${name}" after ${event} on "servers" referencing ${transitionTables} for each statement execute function ${fn}();`,
  };
}

/**
 * How many servers each tenant has: the server quota's count, without counting a tenant's servers on each
 * create (a scan that grows with the tenant). Kept by the statement-level triggers of `servers`, in the
 * transaction of the change; never written by the adapter.
 */
export const ServerCountEntity = defineEntity({
  name: "ServerCount",
  tableName: "server_counts",
  properties: {
    tenant: p.text().primary(),
    n: p.integer(),
  },
});

/** A provider chosen by a server. The server owns the link; the provider cannot go while it exists. */
export const ServerProviderEntity = defineEntity({
  name: "ServerProvider",
  tableName: "server_providers",
  properties: {
    server: () =>
      p.manyToOne(ServerEntity).primary().deleteRule("cascade").foreignKeyName("server_providers_server_id_foreign"),
    provider: () =>
      p
        .manyToOne(ProviderEntity)
        .primary()
        .deleteRule("restrict")
        .foreignKeyName("server_providers_provider_id_foreign"),
    ordinal: p.integer(),
  },
  primaryKeys: ["server", "provider"],
  indexes: [{ name: "server_providers_provider_id_index", properties: ["provider"] }],
});

/**
 * A tool chosen by a server. Its (server, provider) pair must be a provider link of the server, so a tool
 * can only be chosen together with its provider, and leaves when the link does.
 */
export const ServerToolEntity = defineEntity({
  name: "ServerTool",
  tableName: "server_tools",
  properties: {
    link: () =>
      p
        .manyToOne(ServerProviderEntity)
        .primary()
        .joinColumns("server_id", "provider_id")
        .columnTypes("text", "text")
        .collation("C")
        .deleteRule("cascade")
        .foreignKeyName("server_tools_link_foreign"),
    tool: () => p.manyToOne(ToolEntity).primary().deleteRule("restrict").foreignKeyName("server_tools_tool_id_foreign"),
    ordinal: p.integer(),
    // The tool's settings in this server (docs/api-rules.md §20): they go with the choice of the tool.
    alias: p.text().default(""),
    description: p.text().default(""),
    fixedArgs: p.json<Record<string, unknown>>().default("{}").fieldName("fixed_args"),
    approval: p.text().default("INHERIT"),
  },
  primaryKeys: ["link", "tool"],
  indexes: [{ name: "server_tools_tool_id_index", properties: ["tool"] }],
  // The two foreign keys above cannot say that the tool is one of the linked provider's own tools; these
  // checks do, reporting a breach as a foreign key violation. A tool never moves to another provider, so
  // checking at insert (and update) time is enough, and the tool_id foreign key keeps the tool from going away.
  triggers: [toolOfProviderTrigger("insert"), toolOfProviderTrigger("update")],
});

/**
 * A statement-level trigger on server_tools that fails the statement when one of the rows it wrote (its
 * transition table) chooses a tool under a provider the tool does not belong to: one lookup of all the rows
 * at the statement's end, instead of a row trigger's function call per row (50 for a server of 5 × 10
 * tools). It fires after the foreign keys' checks, so a missing tool is reported by `tool_id`'s key.
 */
function toolOfProviderTrigger(event: "insert" | "update") {
  const name = `tool_of_provider_${event}`;
  const fn = `"server_tools_${name}_fn"`;
  return {
    name,
    timing: "after" as const,
    events: [event],
    forEach: "statement" as const,
    expression: `create or replace function ${fn}() returns trigger as $$ declare bad record; begin
  select c.tool_id, c.provider_id into bad from changed c
    where not exists (select 1 from tools t where t.id = c.tool_id and t.provider_id = c.provider_id) limit 1;
  if found then
    raise exception using errcode = 'foreign_key_violation', constraint = 'server_tools_tool_of_provider',
      message = 'the tool is not a tool of the provider it is chosen under',
      detail = format('Key (tool_id, provider_id)=(%s, %s) is not present in table "tools".', bad.tool_id, bad.provider_id);
  end if;
  return null;
end; $$ language plpgsql;
create trigger "${name}" after ${event} on "server_tools" referencing new table as changed for each statement execute function ${fn}();`,
  };
}

export const ServerResourceEntity = defineEntity({
  name: "ServerResource",
  tableName: "server_resources",
  properties: {
    server: () =>
      p.manyToOne(ServerEntity).primary().deleteRule("cascade").foreignKeyName("server_resources_server_id_foreign"),
    resource: () =>
      p
        .manyToOne(ResourceEntity)
        .primary()
        .deleteRule("restrict")
        .foreignKeyName("server_resources_resource_id_foreign"),
    ordinal: p.integer(),
  },
  primaryKeys: ["server", "resource"],
  indexes: [{ name: "server_resources_resource_id_index", properties: ["resource"] }],
});

export const ServerPromptEntity = defineEntity({
  name: "ServerPrompt",
  tableName: "server_prompts",
  properties: {
    server: () =>
      p.manyToOne(ServerEntity).primary().deleteRule("cascade").foreignKeyName("server_prompts_server_id_foreign"),
    prompt: () =>
      p.manyToOne(PromptEntity).primary().deleteRule("restrict").foreignKeyName("server_prompts_prompt_id_foreign"),
    ordinal: p.integer(),
  },
  primaryKeys: ["server", "prompt"],
  indexes: [{ name: "server_prompts_prompt_id_index", properties: ["prompt"] }],
});

export const ServerTokenEntity = defineEntity({
  name: "ServerToken",
  tableName: "server_tokens",
  properties: {
    id: id().primary(),
    server: () => p.manyToOne(ServerEntity).deleteRule("cascade").foreignKeyName("server_tokens_server_id_foreign"),
    tenant: p.text(),
    createdAt: timestamp(),
    expiresAt: timestamp().nullable(),
    name: p.text(),
    valueHash: p.text(),
  },
  uniques: [{ name: "server_tokens_value_hash_unique", properties: ["valueHash"] }],
  indexes: [{ name: "server_tokens_server_id_created_at_index", properties: ["server", "createdAt", "id"] }],
});

// Upstream OAuth connections (docs/api-rules.md §13): one per (provider, tenant, principal), gone with their
// provider and with the server token they were made with; consents under way likewise.
export const UpstreamConnectionEntity = defineEntity({
  name: "UpstreamConnection",
  tableName: "upstream_connections",
  properties: {
    id: id().primary(),
    tenant: p.text(),
    provider: () =>
      p.manyToOne(ProviderEntity).deleteRule("cascade").foreignKeyName("upstream_connections_provider_id_foreign"),
    principal: p.text(),
    serverToken: () =>
      p
        .manyToOne(ServerTokenEntity)
        .nullable()
        .deleteRule("cascade")
        .foreignKeyName("upstream_connections_server_token_id_foreign"),
    scopes: p.json<ReadonlyArray<string>>(),
    tokensCipher: p.text(),
    refreshable: p.boolean(),
    expiresAt: timestamp(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  uniques: [
    { name: "upstream_connections_provider_tenant_principal_unique", properties: ["provider", "tenant", "principal"] },
  ],
  indexes: [{ name: "upstream_connections_server_token_id_index", properties: ["serverToken"] }],
});

export const UpstreamAuthorizationEntity = defineEntity({
  name: "UpstreamAuthorization",
  tableName: "upstream_authorizations",
  properties: {
    id: id().primary(),
    tenant: p.text(),
    provider: () =>
      p.manyToOne(ProviderEntity).deleteRule("cascade").foreignKeyName("upstream_authorizations_provider_id_foreign"),
    principal: p.text(),
    serverToken: () =>
      p
        .manyToOne(ServerTokenEntity)
        .nullable()
        .deleteRule("cascade")
        .foreignKeyName("upstream_authorizations_server_token_id_foreign"),
    scopes: p.json<ReadonlyArray<string>>(),
    codeVerifierCipher: p.text(),
    expiresAt: timestamp(),
    createdAt: timestamp(),
  },
});

/**
 * The git outbox entry of a server (docs/api-rules.md §17): what is pending, who holds it, what the last
 * push did. Claimed with FOR UPDATE SKIP LOCKED and a lease, so two instances never push the same change.
 */
export const GitSyncEntity = defineEntity({
  name: "GitSync",
  tableName: "git_syncs",
  properties: {
    server: () =>
      p.manyToOne(ServerEntity).primary().deleteRule("cascade").foreignKeyName("git_syncs_server_id_foreign"),
    tenant: p.text(),
    state: p.text(),
    changeSeq: p.integer(),
    pushedSeq: p.integer(),
    changedAt: timestamp(),
    pendingSince: timestamp().nullable(),
    attempts: p.integer(),
    nextAttemptAt: timestamp(),
    leaseOwner: p.text().nullable(),
    leaseUntil: timestamp().nullable(),
    commit: p.text(),
    pushedAt: timestamp().nullable(),
    error: p.text(),
    pushedRepo: p.text(),
    pushedFolder: p.text(),
  },
  indexes: [{ name: "git_syncs_next_attempt_at_index", properties: ["nextAttemptAt"] }],
});

/** Every entity of the schema, in dependency order. */
export const ENTITIES = [
  ProviderEntity,
  ToolEntity,
  PromptEntity,
  ResourceEntity,
  VariableEntity,
  GitConnectionEntity,
  ServerEntity,
  ServerProviderEntity,
  ServerToolEntity,
  ServerResourceEntity,
  ServerPromptEntity,
  ServerTokenEntity,
  AuditEventEntity,
  ProviderCountEntity,
  ProviderGenerationEntity,
  ServerCountEntity,
  UpstreamConnectionEntity,
  UpstreamAuthorizationEntity,
  OAuthServerRecordEntity,
  GitSyncEntity,
  ApprovalEntity,
] as const;
