import { defineEntity, p } from "@mikro-orm/postgresql";

// Tasks following long-running upstream operations (docs/api-rules.md §22): in the database, so that a
// `tasks/get` reaching any instance finds the task its poller (the creating instance) keeps up to date.
// No reference to a server: a task lives at most its deadline plus ten minutes, then the sweep deletes it.
export const UpstreamTaskEntity = defineEntity({
  name: "UpstreamTask",
  tableName: "upstream_tasks",
  properties: {
    id: p.text().collation("C").primary(),
    owner: p.text(),
    status: p.text(),
    statusMessage: p.text(),
    result: p.text().nullable(),
    pollIntervalMs: p.integer(),
    createdAt: p.datetime(3),
    lastUpdatedAt: p.datetime(3),
    deadline: p.datetime(3),
    expiresAt: p.datetime(3),
  },
  indexes: [{ name: "upstream_tasks_expires_at_index", properties: ["expiresAt"] }],
});
