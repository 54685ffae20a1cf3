import { Migration } from "@mikro-orm/migrations";

/** The audit trail of docs/api-rules.md §18 (schema/audit-event-entity.ts). */
export class Migration20261124023000_audit_events extends Migration {
  override name = "Migration20261124023000_audit_events";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "audit_events" ("id" text collate "C" not null, "tenant" text not null, "at" timestamptz(3) not null, "actor_sub" text not null, "actor_client_id" text not null, "operation" text not null, "target_kind" text not null, "target_id" text collate "C" not null, "version_before" int not null, "version_after" int not null, "request_id" text not null, "fields" jsonb not null, primary key ("id"));`,
    );
    this.addSql(`create index "audit_events_tenant_at_id_index" on "audit_events" ("tenant", "at", "id");`);
    this.addSql(
      `create index "audit_events_tenant_target_id_at_index" on "audit_events" ("tenant", "target_id", "at");`,
    );
    this.addSql(`create index "audit_events_at_index" on "audit_events" ("at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "audit_events" cascade;`);
  }
}
