import { Migration } from "@mikro-orm/migrations";

export class Migration20261128135954_response_shaping extends Migration {
  override name = "Migration20261128135954_response_shaping";

  override up(): void | Promise<void> {
    this.addSql(`alter table "servers" add "max_result_tokens" int not null default 25000;`);

    this.addSql(`alter table "tools" add "response_filter" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "servers" drop column "max_result_tokens";`);

    this.addSql(`alter table "tools" drop column "response_filter";`);

    this.addSql(`drop function if exists "refuse_expected_write"(text);`);

    this.addSql(
      `create or replace function "refuse_expected_write"("reason" text) returns boolean security invoker volatile language plpgsql as $$ begin raise exception using errcode = 'P0001', message = 'expected write refused: ' || reason; end $$;`,
    );
  }
}
