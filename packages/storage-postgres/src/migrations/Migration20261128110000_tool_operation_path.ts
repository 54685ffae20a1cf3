import { Migration } from "@mikro-orm/migrations";

export class Migration20261128110000_tool_operation_path extends Migration {
  override name = "Migration20261128110000_tool_operation_path";

  override up(): void | Promise<void> {
    this.addSql(`alter table "tools" add "operation_path" text not null default '';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "tools" drop column "operation_path";`);
  }
}
