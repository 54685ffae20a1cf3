import { defineEntity, p } from "@mikro-orm/postgresql";
import { AuditEventEntity } from "./audit-event-entity.js";

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
  ],
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
    headers: p.json<unknown[]>(),
    oauth2Scopes: p.json<string[]>().fieldName("oauth2_scopes"),
    imported: p.boolean().default(false),
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
  },
  uniques: [{ name: "servers_tenant_name_unique", properties: ["tenant", "name"] }],
  indexes: [{ name: "servers_tenant_created_at_id_index", properties: ["tenant", "createdAt", "id"] }],
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
  },
  primaryKeys: ["link", "tool"],
  indexes: [{ name: "server_tools_tool_id_index", properties: ["tool"] }],
  // The two foreign keys above cannot say that the tool is one of the linked provider's own tools; this
  // check does, reporting a breach as a foreign key violation. A tool never moves to another provider,
  // so checking at insert time is enough, and the tool_id foreign key keeps the tool from going away.
  triggers: [
    {
      name: "tool_of_provider",
      timing: "before",
      events: ["insert", "update"],
      forEach: "row",
      body: `if not exists (select 1 from tools t where t.id = new.tool_id and t.provider_id = new.provider_id) then
  raise exception using errcode = 'foreign_key_violation', constraint = 'server_tools_tool_of_provider',
    message = 'the tool is not a tool of the provider it is chosen under',
    detail = format('Key (tool_id, provider_id)=(%s, %s) is not present in table "tools".', new.tool_id, new.provider_id);
end if;
return new;`,
    },
  ],
});

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

/** Every entity of the schema, in dependency order. */
export const ENTITIES = [
  ProviderEntity,
  ToolEntity,
  PromptEntity,
  ResourceEntity,
  VariableEntity,
  ServerEntity,
  ServerProviderEntity,
  ServerToolEntity,
  ServerResourceEntity,
  ServerPromptEntity,
  ServerTokenEntity,
  AuditEventEntity,
] as const;
