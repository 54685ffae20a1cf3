import { Migration } from "@mikro-orm/migrations";

export class Migration20261128140919_caller_values extends Migration {
  override name = "Migration20261128140919_caller_values";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "caller_value_forms" ("id" text collate "C" not null, "tenant" text not null, "variable_id" text collate "C" not null, "principal" text not null, "server_token_id" text collate "C" null, "provider_name" text not null, "expires_at" timestamptz(3) not null, "created_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(`create index "caller_value_forms_expires_at_index" on "caller_value_forms" ("expires_at");`);

    this.addSql(
      `create table "caller_values" ("id" text collate "C" not null, "tenant" text not null, "variable_id" text collate "C" not null, "principal" text not null, "server_token_id" text collate "C" null, "value_cipher" text not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(`create index "caller_values_server_token_id_index" on "caller_values" ("server_token_id");`);
    this.addSql(`create index "caller_values_principal_index" on "caller_values" ("principal");`);
    this.addSql(
      `alter table "caller_values" add constraint "caller_values_variable_principal_unique" unique ("variable_id", "principal");`,
    );

    this.addSql(`alter table "variables" add "per_caller" boolean not null default false;`);

    this.addSql(
      `alter table "caller_value_forms" add constraint "caller_value_forms_variable_id_foreign" foreign key ("variable_id") references "variables" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "caller_value_forms" add constraint "caller_value_forms_server_token_id_foreign" foreign key ("server_token_id") references "server_tokens" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "caller_values" add constraint "caller_values_variable_id_foreign" foreign key ("variable_id") references "variables" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "caller_values" add constraint "caller_values_server_token_id_foreign" foreign key ("server_token_id") references "server_tokens" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "caller_value_forms" cascade;`);
    this.addSql(`drop table if exists "caller_values" cascade;`);

    this.addSql(`alter table "variables" drop column "per_caller";`);

    this.addSql(`drop function if exists "refuse_expected_write"(text);`);

    this.addSql(
      `create or replace function "refuse_expected_write"("reason" text) returns boolean security invoker volatile language plpgsql as $$ begin raise exception using errcode = 'P0001', message = 'expected write refused: ' || reason; end $$;`,
    );
  }
}
