import { defineEntity, p } from "@mikro-orm/postgresql";
import { ServerEntity } from "./entities.js";

// Server revisions (docs/api-rules.md §21): one row per (server, version), going with the server. The
// document and the content are `json`, not `jsonb`: they are written once per write and read back whole, never
// queried inside, and PostgreSQL converting a 5×10 server's 29 KB document to jsonb cost ~1.2 ms of its CPU
// per write (json is checked and stored as text). Listings read the small columns only, newest first, by the
// unique (server, version) index; pruning deletes below a version by the same index.

export const ServerRevisionEntity = defineEntity({
  name: "ServerRevision",
  tableName: "server_revisions",
  properties: {
    id: p.text().collation("C").primary(),
    // Lazy: this file and entities.ts import each other (ENTITIES lists this entity).
    server: () => p.manyToOne(ServerEntity).deleteRule("cascade").foreignKeyName("server_revisions_server_id_foreign"),
    tenant: p.text(),
    version: p.integer(),
    createdAt: p.datetime(3),
    actorSub: p.text(),
    actorClientId: p.text(),
    summary: p.text(),
    document: p.json<unknown>().columnType("json"),
    content: p.json<unknown>().columnType("json"),
  },
  uniques: [{ name: "server_revisions_server_id_version_unique", properties: ["server", "version"] }],
});
