import { Migration } from "@mikro-orm/migrations";

export class Migration20261124035854_git_sync extends Migration {
  override name = "Migration20261124035854_git_sync";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "git_connections" ("id" text collate "C" not null, "tenant" text not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "name" text not null, "kind" text not null, "base_url" text not null, "username" text not null, "token_cipher" text not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "git_connections_tenant_created_at_id_index" on "git_connections" ("tenant", "created_at", "id");`,
    );
    this.addSql(
      `alter table "git_connections" add constraint "git_connections_tenant_name_unique" unique ("tenant", "name");`,
    );

    this.addSql(
      `create table "git_syncs" ("server_id" text collate "C" not null, "tenant" text not null, "state" text not null, "change_seq" int not null, "pushed_seq" int not null, "changed_at" timestamptz(3) not null, "pending_since" timestamptz(3) null, "attempts" int not null, "next_attempt_at" timestamptz(3) not null, "lease_owner" text null, "lease_until" timestamptz(3) null, "commit" text not null, "pushed_at" timestamptz(3) null, "error" text not null, "pushed_repo" text not null, "pushed_folder" text not null, primary key ("server_id"));`,
    );
    this.addSql(`create index "git_syncs_next_attempt_at_index" on "git_syncs" ("next_attempt_at");`);

    this.addSql(
      `alter table "servers" add "git_connection_id" text collate "C" null, add "git_repo_full_name" text null;`,
    );
    this.addSql(
      `alter table "servers" add constraint "servers_git_connection_id_foreign" foreign key ("git_connection_id") references "git_connections" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "git_syncs" add constraint "git_syncs_server_id_foreign" foreign key ("server_id") references "servers" ("id") on update cascade on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "servers" drop constraint "servers_git_connection_id_foreign";`);

    this.addSql(`drop table if exists "git_connections" cascade;`);
    this.addSql(`drop table if exists "git_syncs" cascade;`);

    this.addSql(`alter table "servers" drop column "git_connection_id", drop column "git_repo_full_name";`);
  }
}
