import { Migration } from "@mikro-orm/migrations";

export class Migration20261124043102_tool_response_schema extends Migration {
  override name = "Migration20261124043102_tool_response_schema";

  override up(): void | Promise<void> {
    this.addSql(`alter table "tools" add "resp_body_json_schema" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "tools" drop column "resp_body_json_schema";`);
  }
}
