import { defineEntity, p } from "@mikro-orm/postgresql";
import { id, timestamp } from "./column-types.js";
import { GitConnectionEntity } from "./git-entities.js";
import { PromptEntity, ProviderEntity, ResourceEntity, ToolEntity } from "./provider-entities.js";

// Servers, the links that compose them (providers, tools, resources, prompts) and their access tokens.

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
    maxResultTokens: p.integer().default(25000).fieldName("max_result_tokens"),
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
