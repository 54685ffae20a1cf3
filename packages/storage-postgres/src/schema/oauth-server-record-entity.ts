import { defineEntity, p } from "@mikro-orm/postgresql";

// The records of the service's own OAuth authorization server (packages/mcp-oauth): registrations, grants,
// sessions, codes, refresh tokens. No foreign keys: a grant made with a server token is ended by the
// token's revocation explicitly (with the records of the grant), and expired records are pruned by age.

export const OAuthServerRecordEntity = defineEntity({
  name: "OAuthServerRecord",
  tableName: "oauth_server_records",
  properties: {
    id: p.text().collation("C").primary(),
    model: p.text(),
    payload: p.json<Record<string, unknown>>(),
    grantId: p.text().nullable(),
    uid: p.text().nullable(),
    serverTokenId: p.text().nullable(),
    secretCipher: p.text().nullable(),
    expiresAt: p.datetime(3).nullable(),
    consumedAt: p.datetime(3).nullable(),
  },
  indexes: [
    { name: "oauth_server_records_grant_id_index", properties: ["grantId"] },
    { name: "oauth_server_records_uid_index", properties: ["uid"] },
    { name: "oauth_server_records_server_token_id_index", properties: ["serverTokenId"] },
    { name: "oauth_server_records_expires_at_index", properties: ["expiresAt"] },
  ],
});
