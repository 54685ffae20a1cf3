import { defineEntity, p } from "@mikro-orm/postgresql";
import { id, timestamp } from "./column-types.js";

// The tenant's variables (`${NAME}` in tool headers).

export const VariableEntity = defineEntity({
  name: "Variable",
  tableName: "variables",
  properties: {
    id: id().primary(),
    tenant: p.text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    type: p.text(),
    name: p.text(),
    value: p.text(),
    perCaller: p.boolean().default(false),
  },
  uniques: [{ name: "variables_tenant_name_unique", properties: ["tenant", "name"] }],
  indexes: [{ name: "variables_tenant_created_at_id_index", properties: ["tenant", "createdAt", "id"] }],
});
