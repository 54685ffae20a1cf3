import { defineEntity, p } from "@mikro-orm/postgresql";
import { ServerEntity } from "./entities.js";

// Calls waiting for a person's approval (docs/api-rules.md §20): in the database, so that an approval given
// through one instance serves the caller's retry on another; gone with their server.
export const ApprovalEntity = defineEntity({
  name: "Approval",
  tableName: "tool_approvals",
  properties: {
    id: p.text().collation("C").primary(),
    tenant: p.text(),
    server: () => p.manyToOne(ServerEntity).deleteRule("cascade").foreignKeyName("tool_approvals_server_id_foreign"),
    toolId: p.text().collation("C"),
    toolName: p.text(),
    principal: p.text(),
    argumentsHash: p.text(),
    argumentsShown: p.text(),
    status: p.text(),
    createdAt: p.datetime(3),
    expiresAt: p.datetime(3),
    decidedAt: p.datetime(3).nullable(),
    decidedBy: p.text(),
  },
  // The caller's approvals are looked up on each call that needs one; a tenant's pending ones for the console.
  indexes: [
    { name: "tool_approvals_call_index", properties: ["server", "principal", "toolId"] },
    { name: "tool_approvals_tenant_status_index", properties: ["tenant", "status"] },
  ],
});
