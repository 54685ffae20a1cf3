import { Migration } from "@mikro-orm/migrations";

export class Migration20261121133457_initial extends Migration {
  override name = "Migration20261121133457_initial";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "providers" ("id" text collate "C" not null, "tenant" text not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "version" int not null, "api_type" text not null, "visibility_type" text not null, "base_url" text not null, "document_url" text not null, "icon_url" text not null, "secret_prefix" text not null, "name" text not null, "description" text not null, "oauth2_config" jsonb null, primary key ("id"));`,
    );
    this.addSql(`create index "providers_tenant_created_at_id_index" on "providers" ("tenant", "created_at", "id");`);
    this.addSql(
      `create index "providers_visibility_created_at_id_index" on "providers" ("visibility_type", "created_at", "id");`,
    );
    this.addSql(`alter table "providers" add constraint "providers_tenant_name_unique" unique ("tenant", "name");`);

    this.addSql(
      `create table "prompts" ("id" text collate "C" not null, "provider_id" text collate "C" not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "name" text not null, "description" text not null, "arguments" jsonb not null, "messages" jsonb not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "prompts" add constraint "prompts_provider_id_name_unique" unique ("provider_id", "name");`,
    );

    this.addSql(
      `create table "resources" ("id" text collate "C" not null, "provider_id" text collate "C" not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "name" text not null, "description" text not null, "uri" text not null, "mime_type" text not null, "size" bigint not null, "annotations" jsonb not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "resources" add constraint "resources_provider_id_name_unique" unique ("provider_id", "name");`,
    );

    this.addSql(
      `create table "servers" ("id" text collate "C" not null, "tenant" text not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "version" int not null, "name" text not null, "description" text not null, "request_headers_proxy_enabled" boolean not null, "dynamic_tool_discovery_enabled" boolean not null, primary key ("id"));`,
    );
    this.addSql(`create index "servers_tenant_created_at_id_index" on "servers" ("tenant", "created_at", "id");`);
    this.addSql(`alter table "servers" add constraint "servers_tenant_name_unique" unique ("tenant", "name");`);

    this.addSql(
      `create table "server_prompts" ("server_id" text collate "C" not null, "prompt_id" text collate "C" not null, "ordinal" int not null, primary key ("server_id", "prompt_id"));`,
    );
    this.addSql(`create index "server_prompts_prompt_id_index" on "server_prompts" ("prompt_id");`);

    this.addSql(
      `create table "server_providers" ("server_id" text collate "C" not null, "provider_id" text collate "C" not null, "ordinal" int not null, primary key ("server_id", "provider_id"));`,
    );
    this.addSql(`create index "server_providers_provider_id_index" on "server_providers" ("provider_id");`);

    this.addSql(
      `create table "server_resources" ("server_id" text collate "C" not null, "resource_id" text collate "C" not null, "ordinal" int not null, primary key ("server_id", "resource_id"));`,
    );
    this.addSql(`create index "server_resources_resource_id_index" on "server_resources" ("resource_id");`);

    this.addSql(
      `create table "server_tokens" ("id" text collate "C" not null, "server_id" text collate "C" not null, "tenant" text not null, "created_at" timestamptz(3) not null, "expires_at" timestamptz(3) null, "name" text not null, "value_hash" text not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "server_tokens_server_id_created_at_index" on "server_tokens" ("server_id", "created_at", "id");`,
    );
    this.addSql(`alter table "server_tokens" add constraint "server_tokens_value_hash_unique" unique ("value_hash");`);

    this.addSql(
      `create table "tools" ("id" text collate "C" not null, "provider_id" text collate "C" not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "method" text not null, "path" text not null, "name" text not null, "title" text not null, "description" text not null, "path_args_json_schema" jsonb null, "query_args_json_schema" jsonb null, "req_body_json_schema" jsonb null, "headers" jsonb not null, "oauth2_scopes" jsonb not null, primary key ("id"));`,
    );
    this.addSql(`alter table "tools" add constraint "tools_provider_id_name_unique" unique ("provider_id", "name");`);

    this.addSql(
      `create table "server_tools" ("server_id" text collate "C" not null, "provider_id" text collate "C" not null, "tool_id" text collate "C" not null, "ordinal" int not null, primary key ("server_id", "provider_id", "tool_id"));`,
    );
    this.addSql(`create index "server_tools_tool_id_index" on "server_tools" ("tool_id");`);

    this.addSql(
      `create table "variables" ("id" text collate "C" not null, "tenant" text not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "type" text not null, "name" text not null, "value" text not null, primary key ("id"));`,
    );
    this.addSql(`create index "variables_tenant_created_at_id_index" on "variables" ("tenant", "created_at", "id");`);
    this.addSql(`alter table "variables" add constraint "variables_tenant_name_unique" unique ("tenant", "name");`);

    this.addSql(
      `alter table "prompts" add constraint "prompts_provider_id_foreign" foreign key ("provider_id") references "providers" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "resources" add constraint "resources_provider_id_foreign" foreign key ("provider_id") references "providers" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "server_prompts" add constraint "server_prompts_server_id_foreign" foreign key ("server_id") references "servers" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "server_prompts" add constraint "server_prompts_prompt_id_foreign" foreign key ("prompt_id") references "prompts" ("id") on update cascade on delete restrict;`,
    );

    this.addSql(
      `alter table "server_providers" add constraint "server_providers_server_id_foreign" foreign key ("server_id") references "servers" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "server_providers" add constraint "server_providers_provider_id_foreign" foreign key ("provider_id") references "providers" ("id") on update cascade on delete restrict;`,
    );

    this.addSql(
      `alter table "server_resources" add constraint "server_resources_server_id_foreign" foreign key ("server_id") references "servers" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "server_resources" add constraint "server_resources_resource_id_foreign" foreign key ("resource_id") references "resources" ("id") on update cascade on delete restrict;`,
    );

    this.addSql(
      `alter table "server_tokens" add constraint "server_tokens_server_id_foreign" foreign key ("server_id") references "servers" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "tools" add constraint "tools_provider_id_foreign" foreign key ("provider_id") references "providers" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "server_tools" add constraint "server_tools_link_foreign" foreign key ("server_id", "provider_id") references "server_providers" ("server_id", "provider_id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "server_tools" add constraint "server_tools_tool_id_foreign" foreign key ("tool_id") references "tools" ("id") on update cascade on delete restrict;`,
    );
    this.addSql(`create or replace function "server_tools_tool_of_provider_fn"() returns trigger as $$ begin if not exists (select 1 from tools t where t.id = new.tool_id and t.provider_id = new.provider_id) then
  raise exception using errcode = 'foreign_key_violation', constraint = 'server_tools_tool_of_provider',
    message = 'the tool is not a tool of the provider it is chosen under',
    detail = format('Key (tool_id, provider_id)=(%s, %s) is not present in table "tools".', new.tool_id, new.provider_id); end if; return new; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "tool_of_provider" BEFORE INSERT OR UPDATE on "server_tools" for each ROW execute function "server_tools_tool_of_provider_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "prompts" drop constraint "prompts_provider_id_foreign";`);
    this.addSql(`alter table "resources" drop constraint "resources_provider_id_foreign";`);
    this.addSql(`alter table "server_providers" drop constraint "server_providers_provider_id_foreign";`);
    this.addSql(`alter table "tools" drop constraint "tools_provider_id_foreign";`);
    this.addSql(`alter table "server_prompts" drop constraint "server_prompts_prompt_id_foreign";`);
    this.addSql(`alter table "server_resources" drop constraint "server_resources_resource_id_foreign";`);
    this.addSql(`alter table "server_prompts" drop constraint "server_prompts_server_id_foreign";`);
    this.addSql(`alter table "server_providers" drop constraint "server_providers_server_id_foreign";`);
    this.addSql(`alter table "server_resources" drop constraint "server_resources_server_id_foreign";`);
    this.addSql(`alter table "server_tokens" drop constraint "server_tokens_server_id_foreign";`);
    this.addSql(`alter table "server_tools" drop constraint "server_tools_link_foreign";`);
    this.addSql(`alter table "server_tools" drop constraint "server_tools_tool_id_foreign";`);

    this.addSql(`drop table if exists "providers" cascade;`);
    this.addSql(`drop table if exists "prompts" cascade;`);
    this.addSql(`drop table if exists "resources" cascade;`);
    this.addSql(`drop table if exists "servers" cascade;`);
    this.addSql(`drop table if exists "server_prompts" cascade;`);
    this.addSql(`drop table if exists "server_providers" cascade;`);
    this.addSql(`drop table if exists "server_resources" cascade;`);
    this.addSql(`drop table if exists "server_tokens" cascade;`);
    this.addSql(`drop table if exists "tools" cascade;`);
    this.addSql(`drop trigger if exists "tool_of_provider" on "server_tools";`);
    this.addSql(`drop function if exists "server_tools_tool_of_provider_fn"();`);
    this.addSql(`drop table if exists "server_tools" cascade;`);
    this.addSql(`drop table if exists "variables" cascade;`);
  }
}
