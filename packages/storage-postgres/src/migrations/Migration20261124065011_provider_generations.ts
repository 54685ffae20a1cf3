import { Migration } from "@mikro-orm/migrations";

export class Migration20261124065011_provider_generations extends Migration {
  override name = "Migration20261124065011_provider_generations";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "provider_generations" ("scope" text not null, "generation" bigint not null, primary key ("scope"));`,
    );

    this.addSql(`create or replace function "providers_bump_generation_insert_fn"() returns trigger as $$ begin
  insert into provider_generations as g (scope, generation)
    select scope, pg_current_xact_id()::text::bigint from (
      select 'tenant:' || tenant from (select tenant, visibility_type from changed) as r (tenant, visibility_type)
      union select 'PUBLIC' from (select tenant, visibility_type from changed) as r (tenant, visibility_type) where visibility_type = 'PUBLIC'
    ) as s (scope)
    order by scope = 'PUBLIC', scope
  on conflict (scope) do update set generation = excluded.generation;   return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "bump_generation_insert" after insert on "providers" referencing new table as changed for each statement execute function "providers_bump_generation_insert_fn"();`,
    );
    this.addSql(`create or replace function "providers_bump_generation_delete_fn"() returns trigger as $$ begin
  insert into provider_generations as g (scope, generation)
    select scope, pg_current_xact_id()::text::bigint from (
      select 'tenant:' || tenant from (select tenant, visibility_type from changed) as r (tenant, visibility_type)
      union select 'PUBLIC' from (select tenant, visibility_type from changed) as r (tenant, visibility_type) where visibility_type = 'PUBLIC'
    ) as s (scope)
    order by scope = 'PUBLIC', scope
  on conflict (scope) do update set generation = excluded.generation;   return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "bump_generation_delete" after delete on "providers" referencing old table as changed for each statement execute function "providers_bump_generation_delete_fn"();`,
    );
    this.addSql(`create or replace function "providers_bump_generation_update_fn"() returns trigger as $$ begin
  insert into provider_generations as g (scope, generation)
    select scope, pg_current_xact_id()::text::bigint from (
      select 'tenant:' || tenant from (select tenant, visibility_type from new_rows union all select tenant, visibility_type from old_rows) as r (tenant, visibility_type)
      union select 'PUBLIC' from (select tenant, visibility_type from new_rows union all select tenant, visibility_type from old_rows) as r (tenant, visibility_type) where visibility_type = 'PUBLIC'
    ) as s (scope)
    order by scope = 'PUBLIC', scope
  on conflict (scope) do update set generation = excluded.generation;   return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "bump_generation_update" after update on "providers" referencing old table as old_rows new table as new_rows for each statement execute function "providers_bump_generation_update_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "provider_generations" cascade;`);

    this.addSql(`drop trigger if exists "bump_generation_insert" on "providers";`);
    this.addSql(`drop function if exists "providers_bump_generation_insert_fn"();`);
    this.addSql(`drop trigger if exists "bump_generation_delete" on "providers";`);
    this.addSql(`drop function if exists "providers_bump_generation_delete_fn"();`);
    this.addSql(`drop trigger if exists "bump_generation_update" on "providers";`);
    this.addSql(`drop function if exists "providers_bump_generation_update_fn"();`);
  }
}
