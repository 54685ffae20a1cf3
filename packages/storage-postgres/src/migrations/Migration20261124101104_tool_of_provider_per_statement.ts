import { Migration } from "@mikro-orm/migrations";

export class Migration20261124101104_tool_of_provider_per_statement extends Migration {
  override name = "Migration20261124101104_tool_of_provider_per_statement";

  override up(): void | Promise<void> {
    this.addSql(`drop trigger if exists "tool_of_provider" on "server_tools";`);
    this.addSql(`drop function if exists "server_tools_tool_of_provider_fn"();`);
    this.addSql(`create or replace function "server_tools_tool_of_provider_insert_fn"() returns trigger as $$ declare bad record; begin
  select c.tool_id, c.provider_id into bad from changed c
    where not exists (select 1 from tools t where t.id = c.tool_id and t.provider_id = c.provider_id) limit 1;   if found then
    raise exception using errcode = 'foreign_key_violation', constraint = 'server_tools_tool_of_provider',
      message = 'the tool is not a tool of the provider it is chosen under',
      detail = format('Key (tool_id, provider_id)=(%s, %s) is not present in table "tools".', bad.tool_id, bad.provider_id);   end if;   return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "tool_of_provider_insert" after insert on "server_tools" referencing new table as changed for each statement execute function "server_tools_tool_of_provider_insert_fn"();`,
    );
    this.addSql(`create or replace function "server_tools_tool_of_provider_update_fn"() returns trigger as $$ declare bad record; begin
  select c.tool_id, c.provider_id into bad from changed c
    where not exists (select 1 from tools t where t.id = c.tool_id and t.provider_id = c.provider_id) limit 1;   if found then
    raise exception using errcode = 'foreign_key_violation', constraint = 'server_tools_tool_of_provider',
      message = 'the tool is not a tool of the provider it is chosen under',
      detail = format('Key (tool_id, provider_id)=(%s, %s) is not present in table "tools".', bad.tool_id, bad.provider_id);   end if;   return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "tool_of_provider_update" after update on "server_tools" referencing new table as changed for each statement execute function "server_tools_tool_of_provider_update_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "tool_of_provider_insert" on "server_tools";`);
    this.addSql(`drop function if exists "server_tools_tool_of_provider_insert_fn"();`);
    this.addSql(`drop trigger if exists "tool_of_provider_update" on "server_tools";`);
    this.addSql(`drop function if exists "server_tools_tool_of_provider_update_fn"();`);
    this.addSql(`create or replace function "server_tools_tool_of_provider_fn"() returns trigger as $$ begin if not exists (select 1 from tools t where t.id = new.tool_id and t.provider_id = new.provider_id) then
  raise exception using errcode = 'foreign_key_violation', constraint = 'server_tools_tool_of_provider',
    message = 'the tool is not a tool of the provider it is chosen under',
    detail = format('Key (tool_id, provider_id)=(%s, %s) is not present in table "tools".', new.tool_id, new.provider_id); end if; return new; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "tool_of_provider" BEFORE INSERT OR UPDATE on "server_tools" for each ROW execute function "server_tools_tool_of_provider_fn"();`,
    );
  }
}
