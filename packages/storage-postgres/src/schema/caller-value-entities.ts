import { defineEntity, p } from "@mikro-orm/postgresql";
import { id, timestamp } from "./column-types.js";
import { ServerTokenEntity } from "./server-entities.js";
import { VariableEntity } from "./variable-entity.js";

// Per-caller values of variables (docs/api-rules.md §23): one per (variable, principal), gone with their
// variable and with the server token they were set through; forms under way likewise (keyed by id digest).
export const CallerValueEntity = defineEntity({
  name: "CallerValue",
  tableName: "caller_values",
  properties: {
    id: id().primary(),
    tenant: p.text(),
    variable: () =>
      p.manyToOne(VariableEntity).deleteRule("cascade").foreignKeyName("caller_values_variable_id_foreign"),
    principal: p.text(),
    serverToken: () =>
      p
        .manyToOne(ServerTokenEntity)
        .nullable()
        .deleteRule("cascade")
        .foreignKeyName("caller_values_server_token_id_foreign"),
    valueCipher: p.text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  uniques: [{ name: "caller_values_variable_principal_unique", properties: ["variable", "principal"] }],
  indexes: [
    { name: "caller_values_server_token_id_index", properties: ["serverToken"] },
    { name: "caller_values_principal_index", properties: ["principal"] },
  ],
});

export const CallerValueFormEntity = defineEntity({
  name: "CallerValueForm",
  tableName: "caller_value_forms",
  properties: {
    id: id().primary(),
    tenant: p.text(),
    variable: () =>
      p.manyToOne(VariableEntity).deleteRule("cascade").foreignKeyName("caller_value_forms_variable_id_foreign"),
    principal: p.text(),
    serverToken: () =>
      p
        .manyToOne(ServerTokenEntity)
        .nullable()
        .deleteRule("cascade")
        .foreignKeyName("caller_value_forms_server_token_id_foreign"),
    providerName: p.text(),
    expiresAt: timestamp(),
    createdAt: timestamp(),
  },
  indexes: [{ name: "caller_value_forms_expires_at_index", properties: ["expiresAt"] }],
});
