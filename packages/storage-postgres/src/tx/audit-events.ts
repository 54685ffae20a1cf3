import type { AuditSearch } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { insertRow } from "../table/table.js";
import type { Operations } from "./operations.js";

// The audit trail (schema/audit-event-entity.ts): insert in the transaction of the change, keyset pages
// newest first with the match count in the same statement, and pruning by age in bounded batches.

export const auditEventOperations: Operations<
  "insertAuditEvent" | "searchAuditEvents" | "pruneAuditEvents" | "hasAuditEventsBefore"
> = (tables) => {
  const { auditEvents } = tables;
  const insert = insertRow(auditEvents);

  return (ctx) => ({
    // Nothing reads the event back in its transaction: it travels with the next statement, usually COMMIT.
    insertAuditEvent: (row) => ctx.runner.deferred(insert.sql, insert.params(row)),
    searchAuditEvents: (search: AuditSearch) => {
      const params: Array<unknown> = [];
      const param = (value: unknown) => {
        params.push(value);
        return `$${params.length}`;
      };
      const filters = [`e.tenant = ${param(search.tenant)}`];
      if (search.targetId !== undefined) filters.push(`e.target_id = ${param(search.targetId)}`);
      if (search.operation !== undefined) filters.push(`e.operation = ${param(search.operation)}`);
      if (search.since !== undefined) filters.push(`e.at >= ${param(search.since.toISOString())}::timestamptz`);
      const where = filters.join(" and ");
      const after =
        search.after === undefined
          ? ""
          : `and (e.at, e.id) < (${param(search.after.at.toISOString())}::timestamptz, ${param(search.after.id)})`;
      const limit = param(Math.max(0, Math.floor(search.limit)));
      return Effect.map(
        ctx.rows(
          `select (select count(*) from audit_events e where ${where})::int as n,
             coalesce((select json_agg(${auditEvents.json("p")} order by p.at desc, p.id desc)
               from (select e.* from audit_events e where ${where} ${after}
                     order by e.at desc, e.id desc limit ${limit}) p), '[]'::json) as r`,
          params,
        ),
        (result) => {
          const row = result[0] ?? { n: 0, r: [] };
          return { items: (row.r as Array<unknown>).map(auditEvents.decode), matchCount: Number(row.n) };
        },
      );
    },
    // Oldest first, so a batch always makes progress; SKIP LOCKED lets two instances prune side by side.
    pruneAuditEvents: (before, limit) =>
      Effect.map(
        ctx.rows(
          `delete from audit_events where id in (
             select id from audit_events where at < $1::timestamptz order by at limit $2 for update skip locked)
           returning 1`,
          [before.toISOString(), Math.max(0, Math.floor(limit))],
        ),
        (result) => result.length,
      ),
    // A plain read (audit_events_at_index), so a prune with nothing to delete commits and notifies nothing.
    hasAuditEventsBefore: (before) =>
      Effect.map(
        ctx.rows("select 1 from audit_events where at < $1::timestamptz limit 1", [before.toISOString()]),
        (result) => result.length > 0,
      ),
  });
};
