import { defineEntity, p } from "@mikro-orm/postgresql";
import { ServerEntity } from "./entities.js";

// Server revisions (docs/api-rules.md §21): one row per (server, version), going with the server. The
// document and the content are jsonb as written; listings read the small columns only, newest first, by the
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
    document: p.json<unknown>(),
    content: p.json<unknown>(),
  },
  uniques: [{ name: "server_revisions_server_id_version_unique", properties: ["server", "version"] }],
});
