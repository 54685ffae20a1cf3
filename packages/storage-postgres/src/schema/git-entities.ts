import { defineEntity, p } from "@mikro-orm/postgresql";

// Git connections and the git outbox (docs/api-rules.md §17). A connection's token is ciphertext. The
// outbox has one row per server that has (or had) a connection; it goes with the server.

export const GitConnectionEntity = defineEntity({
  name: "GitConnection",
  tableName: "git_connections",
  properties: {
    id: p.text().collation("C").primary(),
    tenant: p.text(),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
    name: p.text(),
    kind: p.text(),
    baseURL: p.text().fieldName("base_url"),
    username: p.text(),
    tokenCipher: p.text(),
  },
  uniques: [{ name: "git_connections_tenant_name_unique", properties: ["tenant", "name"] }],
  indexes: [{ name: "git_connections_tenant_created_at_id_index", properties: ["tenant", "createdAt", "id"] }],
});
