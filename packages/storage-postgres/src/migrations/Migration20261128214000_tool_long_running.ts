import { Migration } from "@mikro-orm/migrations";

export class Migration20261128214000_tool_long_running extends Migration {
  override name = "Migration20261128214000_tool_long_running";

  override up(): void | Promise<void> {
    this.addSql(`alter table "tools" add "long_running" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "tools" drop column "long_running";`);
  }
}
