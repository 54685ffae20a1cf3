import { defineEntity, p } from "@mikro-orm/postgresql";
import { timestamp } from "./column-types.js";
import { ServerEntity } from "./server-entities.js";

// The git outbox of servers (docs/api-rules.md §17).

/**
 * The git outbox entry of a server (docs/api-rules.md §17): what is pending, who holds it, what the last
 * push did. Claimed with FOR UPDATE SKIP LOCKED and a lease, so two instances never push the same change.
 */
export const GitSyncEntity = defineEntity({
  name: "GitSync",
  tableName: "git_syncs",
  properties: {
    server: () =>
      p.manyToOne(ServerEntity).primary().deleteRule("cascade").foreignKeyName("git_syncs_server_id_foreign"),
    tenant: p.text(),
    state: p.text(),
    changeSeq: p.integer(),
    pushedSeq: p.integer(),
    changedAt: timestamp(),
    pendingSince: timestamp().nullable(),
    attempts: p.integer(),
    nextAttemptAt: timestamp(),
    leaseOwner: p.text().nullable(),
    leaseUntil: timestamp().nullable(),
    commit: p.text(),
    pushedAt: timestamp().nullable(),
    error: p.text(),
    pushedRepo: p.text(),
    pushedFolder: p.text(),
  },
  indexes: [{ name: "git_syncs_next_attempt_at_index", properties: ["nextAttemptAt"] }],
});
