import {
  type GitSyncDue,
  type GitSyncRow,
  type ServerReference,
  type ServerRow,
  type StorageTx,
  UniqueViolation,
} from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { inCreationOrder } from "./creation-order.js";
import type { Tables } from "./tables.js";

// Git connections and the git outbox (docs/api-rules.md §17) with the PostgreSQL store's semantics. The
// transactions of this store run one at a time, so a claim is trivially exclusive; leases still matter
// for entries claimed by a worker whose push outlives its lease.

const clone = <T>(row: T): T => structuredClone(row);

type GitSyncOperations =
  | "insertGitConnection"
  | "deleteGitConnection"
  | "findGitConnection"
  | "listGitConnections"
  | "countGitConnections"
  | "noteGitSyncChanges"
  | "findGitSync"
  | "claimGitSyncs"
  | "hasDueGitSyncs"
  | "settleGitSync";

/** The git operations of a transaction over `tables`; `referencing` lists the servers using a record. */
export const memoryGitSync = (
  tables: Tables,
  referencing: (reference: ServerReference) => ReadonlyArray<ServerRow>,
): Pick<StorageTx, GitSyncOperations> => {
  const { gitConnections, gitSyncs, servers } = tables;
  const pending = (row: GitSyncRow) => row.changeSeq > row.pushedSeq && row.state !== "OFF";
  const due = (row: GitSyncRow, claim: GitSyncDue) => {
    const now = claim.now.getTime();
    return (
      pending(row) &&
      row.nextAttemptAt.getTime() <= now &&
      (row.leaseUntil === null || row.leaseUntil.getTime() < now) &&
      (row.changedAt.getTime() <= claim.quietSince.getTime() ||
        (row.pendingSince !== null && row.pendingSince.getTime() <= claim.pendingBefore.getTime()))
    );
  };
  return {
    insertGitConnection: (row) =>
      Effect.suspend(() => {
        for (const other of gitConnections.values())
          if (other.tenant === row.tenant && other.name === row.name)
            return Effect.fail(new UniqueViolation({ kind: "gitConnection", name: row.name }));
        if (gitConnections.has(row.id)) return Effect.dieMessage(`git connection '${row.id}' already exists`);
        gitConnections.set(row.id, clone(row));
        return Effect.void;
      }),
    // ON DELETE SET NULL: the servers using it lose their connection, not their version.
    deleteGitConnection: (id) =>
      Effect.sync(() => {
        for (const server of servers.values())
          if (server.gitConnectionId === id) servers.set(server.id, { ...server, gitConnectionId: null });
        gitConnections.delete(id);
      }),
    findGitConnection: (id) => Effect.sync(() => clone(gitConnections.get(id))),
    listGitConnections: (tenant) =>
      Effect.sync(() =>
        inCreationOrder([...gitConnections.values()].filter((row) => row.tenant === tenant)).map(clone),
      ),
    countGitConnections: (tenant) =>
      Effect.sync(() => [...gitConnections.values()].filter((row) => row.tenant === tenant).length),
    noteGitSyncChanges: (changes, at, offReason) =>
      Effect.sync(() => {
        const named = new Set(changes.serverIds);
        const affected = new Map<string, ServerRow>();
        for (const id of named) {
          const server = servers.get(id);
          if (server !== undefined) affected.set(id, server);
        }
        for (const providerId of changes.providerIds)
          for (const server of referencing({ kind: "provider", id: providerId }))
            if ((server.gitConnectionId ?? null) !== null) affected.set(server.id, server);
        for (const server of affected.values()) {
          const stored = gitSyncs.get(server.id);
          if ((server.gitConnectionId ?? null) === null) {
            if (stored !== undefined && named.has(server.id))
              gitSyncs.set(server.id, {
                ...stored,
                state: "OFF",
                pushedSeq: stored.changeSeq,
                pendingSince: null,
                error: offReason,
              });
            continue;
          }
          gitSyncs.set(server.id, {
            serverId: server.id,
            tenant: server.tenant,
            commit: "",
            pushedAt: null,
            pushedSeq: 0,
            pushedRepo: "",
            pushedFolder: "",
            leaseOwner: null,
            leaseUntil: null,
            error: "",
            ...stored,
            state: "PENDING",
            changeSeq: (stored?.changeSeq ?? 0) + 1,
            changedAt: at,
            pendingSince: stored?.pendingSince ?? at,
            attempts: 0,
            nextAttemptAt: at,
          });
        }
      }),
    findGitSync: (serverId) => Effect.sync(() => clone(gitSyncs.get(serverId))),
    claimGitSyncs: (claim) =>
      Effect.sync(() => {
        const claimed = [...gitSyncs.values()]
          .filter((row) => due(row, claim))
          .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
          .slice(0, claim.limit);
        return claimed.map((row) => {
          const leased = { ...row, leaseOwner: claim.owner, leaseUntil: claim.leaseUntil };
          gitSyncs.set(row.serverId, leased);
          return clone(leased);
        });
      }),
    hasDueGitSyncs: (claim) => Effect.sync(() => [...gitSyncs.values()].some((row) => due(row, claim))),
    settleGitSync: (serverId, owner, outcome) =>
      Effect.sync(() => {
        const row = gitSyncs.get(serverId);
        if (row === undefined || row.leaseOwner !== owner) return false;
        const released = { ...row, leaseOwner: null, leaseUntil: null };
        if (outcome.kind === "failed") {
          gitSyncs.set(serverId, {
            ...released,
            state: row.state === "OFF" ? "OFF" : "FAILED",
            error: outcome.error,
            attempts: row.attempts + 1,
            nextAttemptAt: outcome.retryAt,
          });
          return true;
        }
        const pushedSeq = Math.max(row.pushedSeq, outcome.seq);
        const still = row.changeSeq > pushedSeq;
        gitSyncs.set(serverId, {
          ...released,
          state: row.state === "OFF" ? "OFF" : still ? "PENDING" : "SYNCED",
          pushedSeq,
          pendingSince: still ? row.changedAt : null,
          commit: outcome.commit,
          pushedAt: outcome.at,
          error: "",
          attempts: 0,
          pushedRepo: outcome.repo,
          pushedFolder: outcome.folder,
        });
        return true;
      }),
  };
};
