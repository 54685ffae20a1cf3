import { Migration } from "@mikro-orm/migrations";

export class Migration20261128213000_upstream_tasks extends Migration {
  override name = "Migration20261128213000_upstream_tasks";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "upstream_tasks" ("id" text collate "C" not null, "owner" text not null, "status" text not null, "status_message" text not null, "result" text null, "poll_interval_ms" int not null, "created_at" timestamptz(3) not null, "last_updated_at" timestamptz(3) not null, "deadline" timestamptz(3) not null, "expires_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(`create index "upstream_tasks_expires_at_index" on "upstream_tasks" ("expires_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "upstream_tasks" cascade;`);
  }
}
