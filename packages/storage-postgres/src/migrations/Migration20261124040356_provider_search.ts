import { Migration } from "@mikro-orm/migrations";

export class Migration20261124040356_provider_search extends Migration {
  override name = "Migration20261124040356_provider_search";

  override up(): void | Promise<void> {
    // Added by hand to the generated statements: the mapping cannot declare an extension (the trigram
    // operator class of the two indexes below needs it; trusted since PostgreSQL 13, so a database owner
    // may create it), nor the first filling of the counts, which the triggers keep from then on.
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(
      `create table "provider_counts" ("tenant" text not null, "visibility_type" text not null, "api_type" text not null, "n" int not null, primary key ("tenant", "visibility_type", "api_type"));`,
    );

    this.addSql(
      `insert into "provider_counts" ("tenant", "visibility_type", "api_type", "n") select "tenant", "visibility_type", "api_type", count(*) from "providers" group by 1, 2, 3;`,
    );
    this.addSql(`create index "providers_name_trgm_index" on "providers" using gin ("name" gin_trgm_ops);`);
    this.addSql(`create index "providers_base_url_trgm_index" on "providers" using gin ("base_url" gin_trgm_ops);`);
    this.addSql(`create or replace function "providers_count_insert_fn"() returns trigger as $$ begin
  insert into provider_counts as c (tenant, visibility_type, api_type, n)
    select tenant, visibility_type, api_type, sum(d)::int from (select tenant, visibility_type, api_type, 1 from changed) as delta (tenant, visibility_type, api_type, d)
    group by tenant, visibility_type, api_type having sum(d) <> 0 order by tenant, visibility_type, api_type
  on conflict (tenant, visibility_type, api_type) do update set n = c.n + excluded.n;   return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "count_insert" after insert on "providers" referencing new table as changed for each statement execute function "providers_count_insert_fn"();`,
    );
    this.addSql(`create or replace function "providers_count_delete_fn"() returns trigger as $$ begin
  insert into provider_counts as c (tenant, visibility_type, api_type, n)
    select tenant, visibility_type, api_type, sum(d)::int from (select tenant, visibility_type, api_type, -1 from changed) as delta (tenant, visibility_type, api_type, d)
    group by tenant, visibility_type, api_type having sum(d) <> 0 order by tenant, visibility_type, api_type
  on conflict (tenant, visibility_type, api_type) do update set n = c.n + excluded.n;   return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "count_delete" after delete on "providers" referencing old table as changed for each statement execute function "providers_count_delete_fn"();`,
    );
    this.addSql(`create or replace function "providers_count_update_fn"() returns trigger as $$ begin
  insert into provider_counts as c (tenant, visibility_type, api_type, n)
    select tenant, visibility_type, api_type, sum(d)::int from (select tenant, visibility_type, api_type, 1 from new_rows
       union all select tenant, visibility_type, api_type, -1 from old_rows) as delta (tenant, visibility_type, api_type, d)
    group by tenant, visibility_type, api_type having sum(d) <> 0 order by tenant, visibility_type, api_type
  on conflict (tenant, visibility_type, api_type) do update set n = c.n + excluded.n;   return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "count_update" after update on "providers" referencing old table as old_rows new table as new_rows for each statement execute function "providers_count_update_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "provider_counts" cascade;`);

    this.addSql(`drop index "providers_name_trgm_index";`);
    this.addSql(`drop index "providers_base_url_trgm_index";`);
    this.addSql(`drop trigger if exists "count_insert" on "providers";`);
    this.addSql(`drop function if exists "providers_count_insert_fn"();`);
    this.addSql(`drop trigger if exists "count_delete" on "providers";`);
    this.addSql(`drop function if exists "providers_count_delete_fn"();`);
    this.addSql(`drop trigger if exists "count_update" on "providers";`);
    this.addSql(`drop function if exists "providers_count_update_fn"();`);
  }
}
