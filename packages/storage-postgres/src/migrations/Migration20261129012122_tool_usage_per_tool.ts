import { Migration } from "@mikro-orm/migrations";

export class Migration20261129012122_tool_usage_per_tool extends Migration {
  override name = "Migration20261129012122_tool_usage_per_tool";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "tool_call_tool_usage" ("tenant" text not null, "server_id" text collate "C" not null, "tool" text not null, "hour" timestamptz(3) not null, "calls" int not null, "errors" int not null, "tokens_before" bigint not null, "tokens_after" bigint not null, primary key ("tenant", "server_id", "tool", "hour"));`,
    );
    this.addSql(`create index "tool_call_tool_usage_hour_index" on "tool_call_tool_usage" ("hour");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tool_call_tool_usage" cascade;`);

    this.addSql(`drop function if exists "refuse_expected_write"(text);`);

    this.addSql(
      `create or replace function "refuse_expected_write"("reason" text) returns boolean security invoker volatile language plpgsql as $$ begin raise exception using errcode = 'P0001', message = 'expected write refused: ' || reason; end $$;`,
    );
  }
}
