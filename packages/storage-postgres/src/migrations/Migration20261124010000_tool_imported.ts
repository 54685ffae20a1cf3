import { Migration } from "@mikro-orm/migrations";

/** Marks the tools an OpenAPI import made, so a re-sync changes only those (issue 12). */
export class Migration20261124010000_tool_imported extends Migration {
  override name = "Migration20261124010000_tool_imported";

  override up(): void | Promise<void> {
    this.addSql(`alter table "tools" add column "imported" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "tools" drop column "imported";`);
  }
}
