import { Migration } from "@mikro-orm/migrations";

export class Migration20261128105552_tool_body_fields extends Migration {
  override name = "Migration20261128105552_tool_body_fields";

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "tools" add "req_content_type" text not null default 'application/json', add "req_body_encoding" jsonb not null default '{}', add "output_schema_mode" text not null default 'LENIENT';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "tools" drop column "req_content_type", drop column "req_body_encoding", drop column "output_schema_mode";`,
    );

    this.addSql(`drop function if exists "refuse_expected_write"(text);`);

    this.addSql(
      `create or replace function "refuse_expected_write"("reason" text) returns boolean security invoker volatile language plpgsql as $$ begin raise exception using errcode = 'P0001', message = 'expected write refused: ' || reason; end $$;`,
    );
  }
}
