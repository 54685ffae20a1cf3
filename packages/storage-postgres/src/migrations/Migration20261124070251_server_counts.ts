import { Migration } from "@mikro-orm/migrations";

export class Migration20261124070251_server_counts extends Migration {
  override name = "Migration20261124070251_server_counts";

  override up(): void | Promise<void> {
    this.addSql(`create table "server_counts" ("tenant" text not null, "n" int not null, primary key ("tenant"));`);
    // Added by hand to the generated statements: the first filling of the counts, which the triggers keep
    // from then on (the migration runs in one transaction).
    this.addSql(`insert into "server_counts" ("tenant", "n") select "tenant", count(*) from "servers" group by 1;`);

    this.addSql(`create or replace function "servers_count_insert_fn"() returns trigger as $$ begin
  insert into server_counts as c (tenant, n)
    select tenant, sum(d)::int from (select tenant, 1 from changed) as delta (tenant, d)
    group by tenant having sum(d) <> 0 order by tenant
  on conflict (tenant) do update set n = c.n + excluded.n;   return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "count_insert" after insert on "servers" referencing new table as changed for each statement execute function "servers_count_insert_fn"();`,
    );
    this.addSql(`create or replace function "servers_count_delete_fn"() returns trigger as $$ begin
  insert into server_counts as c (tenant, n)
    select tenant, sum(d)::int from (select tenant, -1 from changed) as delta (tenant, d)
    group by tenant having sum(d) <> 0 order by tenant
  on conflict (tenant) do update set n = c.n + excluded.n;   return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "count_delete" after delete on "servers" referencing old table as changed for each statement execute function "servers_count_delete_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "server_counts" cascade;`);

    this.addSql(`drop trigger if exists "count_insert" on "servers";`);
    this.addSql(`drop function if exists "servers_count_insert_fn"();`);
    this.addSql(`drop trigger if exists "count_delete" on "servers";`);
    this.addSql(`drop function if exists "servers_count_delete_fn"();`);
  }
}
