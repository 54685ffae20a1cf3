import { Migration } from "@mikro-orm/migrations";

export class Migration20261129020320_tool_calls_listing_key extends Migration {
  override name = "Migration20261129020320_tool_calls_listing_key";

  override up(): void | Promise<void> {
    this.addSql(`drop index "tool_calls_server_id_at_id_index";`);
    this.addSql(`alter table "tool_calls" drop constraint "tool_calls_pkey";`);
    this.addSql(`alter table "tool_calls" add primary key ("server_id", "at", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "tool_calls" drop constraint "tool_calls_pkey";`);
    this.addSql(`create index "tool_calls_server_id_at_id_index" on "tool_calls" ("server_id", "at", "id");`);
    this.addSql(`alter table "tool_calls" add primary key ("id");`);

    this.addSql(`drop function if exists "refuse_expected_write"(text);`);

    this.addSql(
      `create or replace function "refuse_expected_write"("reason" text) returns boolean security invoker volatile language plpgsql as $$ begin raise exception using errcode = 'P0001', message = 'expected write refused: ' || reason; end $$;`,
    );
  }
}
