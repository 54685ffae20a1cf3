import { Migration } from "@mikro-orm/migrations";

/** Server revisions of docs/api-rules.md §21 (schema/server-revision-entity.ts). */
export class Migration20261128141343_server_revisions extends Migration {
  override name = "Migration20261128141343_server_revisions";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "server_revisions" ("id" text collate "C" not null, "server_id" text collate "C" not null, "tenant" text not null, "version" int not null, "created_at" timestamptz(3) not null, "actor_sub" text not null, "actor_client_id" text not null, "summary" text not null, "document" jsonb not null, "content" jsonb not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "server_revisions" add constraint "server_revisions_server_id_version_unique" unique ("server_id", "version");`,
    );

    this.addSql(
      `alter table "server_revisions" add constraint "server_revisions_server_id_foreign" foreign key ("server_id") references "servers" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "server_revisions" cascade;`);
  }
}
