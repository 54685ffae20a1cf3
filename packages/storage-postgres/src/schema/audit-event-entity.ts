import { defineEntity, p } from "@mikro-orm/postgresql";

// The audit trail (docs/api-rules.md §18). No foreign keys: an event outlives the record it names (a delete
// is audited too). Listed per tenant newest first, optionally per target; pruned by age across tenants.

export const AuditEventEntity = defineEntity({
  name: "AuditEvent",
  tableName: "audit_events",
  properties: {
    id: p.text().collation("C").primary(),
    tenant: p.text(),
    at: p.datetime(3),
    actorSub: p.text(),
    actorClientId: p.text(),
    operation: p.text(),
    targetKind: p.text(),
    targetId: p.text().collation("C"),
    versionBefore: p.integer(),
    versionAfter: p.integer(),
    requestId: p.text(),
    fields: p.json<string[]>(),
  },
  indexes: [
    { name: "audit_events_tenant_at_id_index", properties: ["tenant", "at", "id"] },
    { name: "audit_events_tenant_target_id_at_index", properties: ["tenant", "targetId", "at"] },
    { name: "audit_events_at_index", properties: ["at"] },
  ],
});
