import type { ApprovalStatus } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { insertRow, updateRow } from "../table/table.js";
import { missingServerBreach } from "./breaches.js";
import type { Operations } from "./operations.js";

// Calls waiting for approval (docs/api-rules.md §20). A decision and a use are one compare-and-set on the
// status (`update … where status = $n`), so of two instances racing, one wins.

export const approvalOperations: Operations<
  | "insertApproval"
  | "findApproval"
  | "updateApproval"
  | "listCallApprovals"
  | "listApprovals"
  | "deleteExpiredApprovals"
  | "hasExpiredApprovals"
> = (tables) => {
  const { approvals } = tables;
  const insert = insertRow(approvals);
  const update = updateRow(approvals, ["tenant", "createdAt"]);
  const select = `select ${approvals.json("a")} as r from tool_approvals a`;
  return (ctx) => ({
    insertApproval: (row) =>
      ctx.runner.guarded(
        ctx.runner
          .rows(insert.sql, insert.params(row))
          .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", missingServerBreach("server", row.serverId))),
      ),
    findApproval: (id) => ctx.one(`${select} where a.id = $1`, [id], approvals.decode),
    updateApproval: (row, expectedStatus) => {
      const params = update.params(row);
      return Effect.map(
        ctx.rows(`${update.sql} and status = $${params.length + 1} returning 1`, [...params, expectedStatus]),
        (rows) => rows.length > 0,
      );
    },
    listCallApprovals: (serverId, principal, toolId) =>
      ctx.many(
        `${select} where a.server_id = $1 and a.principal = $2 and a.tool_id = $3 order by a.created_at, a.id`,
        [serverId, principal, toolId],
        approvals.decode,
      ),
    listApprovals: (tenant, status, after) =>
      ctx.many(
        `${select} where a.tenant = $1 and a.status = $2 and a.expires_at > $3::timestamptz order by a.created_at, a.id`,
        [tenant, status, after.toISOString()],
        approvals.decode,
      ),
    // `skip locked`: two instances sweeping at once delete (and count) disjoint rows.
    deleteExpiredApprovals: (at, limit) =>
      Effect.map(
        ctx.rows(
          `delete from tool_approvals where id in (select id from tool_approvals where expires_at <= $1::timestamptz
             order by expires_at limit $2 for update skip locked) returning status`,
          [at.toISOString(), limit],
        ),
        (rows) => rows.map((row) => (row as { status: ApprovalStatus }).status),
      ),
    // A plain read, so a sweep with nothing to delete commits nothing and notifies no instance's read cache.
    hasExpiredApprovals: (at) =>
      Effect.map(
        ctx.rows("select 1 from tool_approvals where expires_at <= $1::timestamptz limit 1", [at.toISOString()]),
        (rows) => rows.length > 0,
      ),
  });
};
