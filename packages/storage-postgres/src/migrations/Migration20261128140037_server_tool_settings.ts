import { Migration } from "@mikro-orm/migrations";

export class Migration20261128140037_server_tool_settings extends Migration {
  override name = "Migration20261128140037_server_tool_settings";

  override up(): void | Promise<void> {
    this.addSql(`alter table "servers" add "approval_policy" text not null default 'NONE';`);

    this.addSql(
      `alter table "server_tools" add "alias" text not null default '', add "description" text not null default '', add "fixed_args" jsonb not null default '{}', add "approval" text not null default 'INHERIT';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "server_tools" drop column "alias", drop column "description", drop column "fixed_args", drop column "approval";`,
    );

    this.addSql(`alter table "servers" drop column "approval_policy";`);

    this.addSql(`drop function if exists "refuse_expected_write"(text);`);

    this.addSql(
      `create or replace function "refuse_expected_write"("reason" text) returns boolean security invoker volatile language plpgsql as $$ begin raise exception using errcode = 'P0001', message = 'expected write refused: ' || reason; end $$;`,
    );
  }
}
