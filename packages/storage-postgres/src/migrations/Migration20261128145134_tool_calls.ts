import { Migration } from "@mikro-orm/migrations";

export class Migration20261128145134_tool_calls extends Migration {
  override name = "Migration20261128145134_tool_calls";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "tool_calls" ("id" text collate "C" not null, "tenant" text not null, "server_id" text collate "C" not null, "at" timestamptz(3) not null, "tool" text not null, "principal" text not null, "era" text not null, "status" text not null, "error_type" text not null, "upstream_status" int not null, "latency_ms" double precision not null, "result_chars" int not null, "tokens_before" int not null, "tokens_after" int null, "arguments" jsonb null, primary key ("id"));`,
    );
    this.addSql(`create index "tool_calls_server_id_at_id_index" on "tool_calls" ("server_id", "at", "id");`);
    this.addSql(`create index "tool_calls_at_index" on "tool_calls" ("at");`);

    this.addSql(
      `create table "tool_call_hourly_usage" ("tenant" text not null, "server_id" text collate "C" not null, "minute" timestamptz(3) not null, "calls" int not null, "errors" int not null, "tokens" bigint not null, "l0" int not null default 0, "l1" int not null default 0, "l2" int not null default 0, "l3" int not null default 0, "l4" int not null default 0, "l5" int not null default 0, "l6" int not null default 0, "l7" int not null default 0, "l8" int not null default 0, "l9" int not null default 0, "l10" int not null default 0, "l11" int not null default 0, "l12" int not null default 0, "l13" int not null default 0, "l14" int not null default 0, "l15" int not null default 0, "l16" int not null default 0, "l17" int not null default 0, "l18" int not null default 0, "l19" int not null default 0, "l20" int not null default 0, "l21" int not null default 0, "l22" int not null default 0, "l23" int not null default 0, "l24" int not null default 0, "l25" int not null default 0, "l26" int not null default 0, "l27" int not null default 0, "l28" int not null default 0, "l29" int not null default 0, "l30" int not null default 0, primary key ("tenant", "server_id", "minute"));`,
    );
    this.addSql(`create index "tool_call_hourly_usage_minute_index" on "tool_call_hourly_usage" ("minute");`);

    this.addSql(
      `create table "tool_call_usage" ("tenant" text not null, "server_id" text collate "C" not null, "minute" timestamptz(3) not null, "calls" int not null, "errors" int not null, "tokens" bigint not null, "l0" int not null default 0, "l1" int not null default 0, "l2" int not null default 0, "l3" int not null default 0, "l4" int not null default 0, "l5" int not null default 0, "l6" int not null default 0, "l7" int not null default 0, "l8" int not null default 0, "l9" int not null default 0, "l10" int not null default 0, "l11" int not null default 0, "l12" int not null default 0, "l13" int not null default 0, "l14" int not null default 0, "l15" int not null default 0, "l16" int not null default 0, "l17" int not null default 0, "l18" int not null default 0, "l19" int not null default 0, "l20" int not null default 0, "l21" int not null default 0, "l22" int not null default 0, "l23" int not null default 0, "l24" int not null default 0, "l25" int not null default 0, "l26" int not null default 0, "l27" int not null default 0, "l28" int not null default 0, "l29" int not null default 0, "l30" int not null default 0, primary key ("tenant", "server_id", "minute"));`,
    );
    this.addSql(`create index "tool_call_usage_minute_index" on "tool_call_usage" ("minute");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tool_calls" cascade;`);
    this.addSql(`drop table if exists "tool_call_hourly_usage" cascade;`);
    this.addSql(`drop table if exists "tool_call_usage" cascade;`);

    this.addSql(`drop function if exists "refuse_expected_write"(text);`);

    this.addSql(
      `create or replace function "refuse_expected_write"("reason" text) returns boolean security invoker volatile language plpgsql as $$ begin raise exception using errcode = 'P0001', message = 'expected write refused: ' || reason; end $$;`,
    );
  }
}
