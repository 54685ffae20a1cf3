import { Migration } from "@mikro-orm/migrations";

export class Migration20261124040441_oauth_server_records extends Migration {
  override name = "Migration20261124040441_oauth_server_records";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "oauth_server_records" ("id" text collate "C" not null, "model" text not null, "payload" jsonb not null, "grant_id" text null, "uid" text null, "server_token_id" text null, "secret_cipher" text null, "expires_at" timestamptz(3) null, "consumed_at" timestamptz(3) null, primary key ("id"));`,
    );
    this.addSql(`create index "oauth_server_records_grant_id_index" on "oauth_server_records" ("grant_id");`);
    this.addSql(`create index "oauth_server_records_uid_index" on "oauth_server_records" ("uid");`);
    this.addSql(
      `create index "oauth_server_records_server_token_id_index" on "oauth_server_records" ("server_token_id");`,
    );
    this.addSql(`create index "oauth_server_records_expires_at_index" on "oauth_server_records" ("expires_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "oauth_server_records" cascade;`);
  }
}
