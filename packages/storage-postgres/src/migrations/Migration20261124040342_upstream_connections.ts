import { Migration } from "@mikro-orm/migrations";

export class Migration20261124040342_upstream_connections extends Migration {
  override name = "Migration20261124040342_upstream_connections";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "upstream_authorizations" ("id" text collate "C" not null, "tenant" text not null, "provider_id" text collate "C" not null, "principal" text not null, "server_token_id" text collate "C" null, "scopes" jsonb not null, "code_verifier_cipher" text not null, "expires_at" timestamptz(3) not null, "created_at" timestamptz(3) not null, primary key ("id"));`,
    );

    this.addSql(
      `create table "upstream_connections" ("id" text collate "C" not null, "tenant" text not null, "provider_id" text collate "C" not null, "principal" text not null, "server_token_id" text collate "C" null, "scopes" jsonb not null, "tokens_cipher" text not null, "refreshable" boolean not null, "expires_at" timestamptz(3) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "upstream_connections_server_token_id_index" on "upstream_connections" ("server_token_id");`,
    );
    this.addSql(
      `alter table "upstream_connections" add constraint "upstream_connections_provider_tenant_principal_unique" unique ("provider_id", "tenant", "principal");`,
    );

    this.addSql(
      `alter table "upstream_authorizations" add constraint "upstream_authorizations_provider_id_foreign" foreign key ("provider_id") references "providers" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "upstream_authorizations" add constraint "upstream_authorizations_server_token_id_foreign" foreign key ("server_token_id") references "server_tokens" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "upstream_connections" add constraint "upstream_connections_provider_id_foreign" foreign key ("provider_id") references "providers" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "upstream_connections" add constraint "upstream_connections_server_token_id_foreign" foreign key ("server_token_id") references "server_tokens" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "upstream_authorizations" cascade;`);
    this.addSql(`drop table if exists "upstream_connections" cascade;`);
  }
}
