import { defineEntity, p } from "@mikro-orm/postgresql";
import { id, timestamp } from "./column-types.js";
import { ProviderEntity } from "./provider-entities.js";
import { ServerTokenEntity } from "./server-entities.js";

// Upstream OAuth connections (docs/api-rules.md §13): one per (provider, tenant, principal), gone with their
// provider and with the server token they were made with; consents under way likewise.
export const UpstreamConnectionEntity = defineEntity({
  name: "UpstreamConnection",
  tableName: "upstream_connections",
  properties: {
    id: id().primary(),
    tenant: p.text(),
    provider: () =>
      p.manyToOne(ProviderEntity).deleteRule("cascade").foreignKeyName("upstream_connections_provider_id_foreign"),
    principal: p.text(),
    serverToken: () =>
      p
        .manyToOne(ServerTokenEntity)
        .nullable()
        .deleteRule("cascade")
        .foreignKeyName("upstream_connections_server_token_id_foreign"),
    scopes: p.json<ReadonlyArray<string>>(),
    tokensCipher: p.text(),
    refreshable: p.boolean(),
    expiresAt: timestamp(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  uniques: [
    { name: "upstream_connections_provider_tenant_principal_unique", properties: ["provider", "tenant", "principal"] },
  ],
  indexes: [{ name: "upstream_connections_server_token_id_index", properties: ["serverToken"] }],
});

export const UpstreamAuthorizationEntity = defineEntity({
  name: "UpstreamAuthorization",
  tableName: "upstream_authorizations",
  properties: {
    id: id().primary(),
    tenant: p.text(),
    provider: () =>
      p.manyToOne(ProviderEntity).deleteRule("cascade").foreignKeyName("upstream_authorizations_provider_id_foreign"),
    principal: p.text(),
    serverToken: () =>
      p
        .manyToOne(ServerTokenEntity)
        .nullable()
        .deleteRule("cascade")
        .foreignKeyName("upstream_authorizations_server_token_id_foreign"),
    scopes: p.json<ReadonlyArray<string>>(),
    codeVerifierCipher: p.text(),
    expiresAt: timestamp(),
    createdAt: timestamp(),
  },
});
