import { Migration } from "@mikro-orm/migrations";

export class Migration20261124095030_expected_write_refusal extends Migration {
  override name = "Migration20261124095030_expected_write_refusal";

  override up(): void | Promise<void> {
    this.addSql(
      `create or replace function "refuse_expected_write"("reason" text) returns boolean language plpgsql as $$ begin raise exception using errcode = 'P0001', message = 'expected write refused: ' || reason; end; $$;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop function if exists "refuse_expected_write"(text);`);
  }
}
