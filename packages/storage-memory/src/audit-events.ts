import type { AuditEventRow, AuditSearch, StorageTx } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import type { Tables } from "./tables.js";

/** Newest first: time, then id (code unit order), both descending. */
const newerFirst = (a: AuditEventRow, b: AuditEventRow) =>
  b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

const matches = (search: AuditSearch) => (row: AuditEventRow) =>
  row.tenant === search.tenant &&
  (search.targetId === undefined || row.targetId === search.targetId) &&
  (search.operation === undefined || row.operation === search.operation) &&
  (search.since === undefined || row.at.getTime() >= search.since.getTime());

/** The audit operations of a transaction over `tables`. */
export const memoryAuditEvents = (
  tables: Tables,
): Pick<StorageTx, "insertAuditEvent" | "searchAuditEvents" | "pruneAuditEvents" | "hasAuditEventsBefore"> => ({
  insertAuditEvent: (row) =>
    Effect.sync(() => {
      tables.auditEvents = [...tables.auditEvents, structuredClone(row)];
    }),
  searchAuditEvents: (search) =>
    Effect.sync(() => {
      const matching = tables.auditEvents.filter(matches(search)).sort(newerFirst);
      const after = search.after;
      // The first event that sorts after the cursor.
      const start =
        after === undefined
          ? 0
          : matching.findIndex((row) => newerFirst({ ...row, at: after.at, id: after.id }, row) < 0);
      const items = start < 0 ? [] : matching.slice(start, start + Math.max(0, Math.floor(search.limit)));
      return { items: items.map((row) => structuredClone(row)), matchCount: matching.length };
    }),
  pruneAuditEvents: (before, limit) =>
    Effect.sync(() => {
      const old = tables.auditEvents.filter((row) => row.at.getTime() < before.getTime());
      const doomed = new Set(old.sort((a, b) => -newerFirst(a, b)).slice(0, Math.max(0, limit)));
      if (doomed.size > 0) tables.auditEvents = tables.auditEvents.filter((row) => !doomed.has(row));
      return doomed.size;
    }),
  hasAuditEventsBefore: (before) =>
    Effect.sync(() => tables.auditEvents.some((row) => row.at.getTime() < before.getTime())),
});
