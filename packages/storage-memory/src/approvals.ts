import { type ApprovalStore, ReferenceViolation } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { inCreationOrder } from "./creation-order.js";
import { clone, cloneAll, find } from "./row-copies.js";
import type { Tables } from "./tables.js";

/** Calls waiting for approval (docs/api-rules.md §20); deleted with their server (servers.ts). */
export const memoryApprovals = (tables: Tables): ApprovalStore => {
  const { approvals } = tables;
  return {
    insertApproval: (row) =>
      Effect.suspend(() =>
        tables.servers.has(row.serverId)
          ? Effect.sync(() => void approvals.set(row.id, clone(row)))
          : Effect.fail(new ReferenceViolation({ kind: "server", detail: `server '${row.serverId}' does not exist` })),
      ),
    findApproval: find(approvals),
    updateApproval: (row, expectedStatus) =>
      Effect.sync(() => {
        const stored = approvals.get(row.id);
        if (stored === undefined || stored.status !== expectedStatus) return false;
        approvals.set(row.id, { ...clone(row), tenant: stored.tenant, createdAt: stored.createdAt });
        return true;
      }),
    listCallApprovals: (serverId, principal, toolId) =>
      Effect.sync(() =>
        cloneAll(
          inCreationOrder(
            [...approvals.values()].filter(
              (r) => r.serverId === serverId && r.principal === principal && r.toolId === toolId,
            ),
          ),
        ),
      ),
    listApprovals: (tenant, status, after) =>
      Effect.sync(() =>
        cloneAll(
          inCreationOrder(
            [...approvals.values()].filter((r) => r.tenant === tenant && r.status === status && r.expiresAt > after),
          ),
        ),
      ),
    deleteExpiredApprovals: (at, limit) =>
      Effect.sync(() => {
        const gone = [...approvals.values()].filter((r) => r.expiresAt <= at).slice(0, limit);
        for (const row of gone) approvals.delete(row.id);
        return gone.map((row) => row.status);
      }),
    hasExpiredApprovals: (at) => Effect.sync(() => [...approvals.values()].some((r) => r.expiresAt <= at)),
  };
};
