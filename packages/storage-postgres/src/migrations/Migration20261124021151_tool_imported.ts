import { Migration } from "@mikro-orm/migrations";

export class Migration20261124021151_tool_imported extends Migration {
  override name = "Migration20261124021151_tool_imported";

  override up(): void | Promise<void> {
    this.addSql(`alter table "tools" add "imported" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "tools" drop column "imported";`);
  }
}
