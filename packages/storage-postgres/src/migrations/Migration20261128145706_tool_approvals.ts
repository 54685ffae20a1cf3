import { Migration } from "@mikro-orm/migrations";

export class Migration20261128145706_tool_approvals extends Migration {
  override name = "Migration20261128145706_tool_approvals";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "tool_approvals" ("id" text collate "C" not null, "tenant" text not null, "server_id" text collate "C" not null, "tool_id" text collate "C" not null, "tool_name" text not null, "principal" text not null, "arguments_hash" text not null, "arguments_shown" text not null, "status" text not null, "created_at" timestamptz(3) not null, "expires_at" timestamptz(3) not null, "decided_at" timestamptz(3) null, "decided_by" text not null, primary key ("id"));`,
    );
    this.addSql(`create index "tool_approvals_call_index" on "tool_approvals" ("server_id", "principal", "tool_id");`);
    this.addSql(`create index "tool_approvals_tenant_status_index" on "tool_approvals" ("tenant", "status");`);

    this.addSql(
      `alter table "tool_approvals" add constraint "tool_approvals_server_id_foreign" foreign key ("server_id") references "servers" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tool_approvals" cascade;`);

    this.addSql(`drop function if exists "refuse_expected_write"(text);`);

    this.addSql(
      `create or replace function "refuse_expected_write"("reason" text) returns boolean security invoker volatile language plpgsql as $$ begin raise exception using errcode = 'P0001', message = 'expected write refused: ' || reason; end $$;`,
    );
  }
}
