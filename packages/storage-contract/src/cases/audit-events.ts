import { type AuditEventRow, type AuditSearch, unmappedWrites } from "@mcpsm/domain/storage";
import { Data, Effect } from "effect";
import { describe, expect, it } from "vitest";
import { at, id, TENANT_A, TENANT_B } from "../fixtures.js";
import type { Harness } from "../harness.js";

// insertAuditEvent / searchAuditEvents / pruneAuditEvents: one tenant's events newest first (time, then id
// in code unit order, both descending), filters combined with AND, a keyset cursor, and pruning by age in
// bounded batches across tenants. Events are written in the caller's transaction and go with its rollback.

class Boom extends Data.TaggedError("Boom")<Record<never, never>> {}

const event = (n: number, override: Partial<AuditEventRow> = {}): AuditEventRow => ({
  id: id("audt", n),
  tenant: TENANT_A,
  at: at(n),
  actorSub: `user-${n}`,
  actorClientId: `client-${n}`,
  operation: n % 2 === 0 ? "updateServer" : "createProvider",
  targetKind: n % 2 === 0 ? "server" : "provider",
  targetId: id("targ", n % 3),
  versionBefore: n,
  versionAfter: n + 1,
  requestId: `req-${n}`,
  fields: n % 2 === 0 ? ["name", "description"] : [],
  ...override,
});

export const auditEventCases = (h: Harness) =>
  describe("audit events", () => {
    const insert = (rows: ReadonlyArray<AuditEventRow>) =>
      h.run((tx) => Effect.forEach(rows, (row) => tx.insertAuditEvent(row), { discard: true }));
    const search = (s: Partial<AuditSearch> = {}) =>
      h.read((tx) => tx.searchAuditEvents({ tenant: TENANT_A, limit: 100, ...s }));

    // A write method added to the port for a new kind of record must be known to the audit recorder
    // (packages/domain/src/audit/audit-recorder.ts), or a management write through it records no event.
    it("every write method of the adapter is accounted for by the audit trail", async () => {
      expect(await h.read((tx) => Effect.succeed(unmappedWrites(tx)))).toEqual([]);
      await h.run((tx) => Effect.sync(() => expect(unmappedWrites(tx)).toEqual([])));
    });

    it("round-trips every field and lists one tenant's events newest first", async () => {
      const rows = [event(1), event(2), event(3), event(4, { tenant: TENANT_B })];
      await insert(rows);
      const page = await search();
      expect(page.items).toEqual([rows[2], rows[1], rows[0]]);
      expect(page.matchCount).toBe(3);
    });

    it("orders events of the same instant by id, descending in code unit order", async () => {
      const rows = [event(1, { id: "Zaudit00001" }), event(2, { id: "aaudit00002", at: at(1) })];
      await insert(rows);
      expect((await search()).items.map((e) => e.id)).toEqual(["aaudit00002", "Zaudit00001"]);
    });

    it("filters by target id, operation and time, combined with AND", async () => {
      await insert(Array.from({ length: 9 }, (_, i) => event(i + 1)));
      expect((await search({ targetId: id("targ", 1) })).items.map((e) => e.versionBefore)).toEqual([7, 4, 1]);
      expect((await search({ operation: "updateServer" })).items.map((e) => e.versionBefore)).toEqual([8, 6, 4, 2]);
      expect((await search({ since: at(7) })).items.map((e) => e.versionBefore)).toEqual([9, 8, 7]);
      const all = await search({ operation: "updateServer", targetId: id("targ", 2), since: at(3) });
      expect(all.items.map((e) => e.versionBefore)).toEqual([8]);
      expect(all.matchCount).toBe(1);
    });

    it("pages with a cursor without skipping or repeating, and counts over all pages", async () => {
      await insert(Array.from({ length: 7 }, (_, i) => event(i + 1)));
      const seen: Array<number> = [];
      let after: { at: Date; id: string } | undefined;
      for (let round = 0; round < 10; round++) {
        const page = await search({ after, limit: 3 });
        expect(page.matchCount).toBe(7);
        seen.push(...page.items.map((e) => e.versionBefore));
        const last = page.items.at(-1);
        if (page.items.length < 3 || last === undefined) break;
        after = { at: last.at, id: last.id };
      }
      expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
    });

    it("an event goes with the rollback of its transaction", async () => {
      await h.failure((tx) => Effect.zipRight(tx.insertAuditEvent(event(1)), Effect.fail(new Boom())));
      expect((await search()).items).toEqual([]);
    });

    it("prunes the oldest events before a time, of every tenant, at most `limit` per call", async () => {
      await insert([event(1), event(2, { tenant: TENANT_B }), event(3), event(4), event(5)]);
      expect(await h.read((tx) => tx.hasAuditEventsBefore(at(1)))).toBe(false);
      expect(await h.read((tx) => tx.hasAuditEventsBefore(at(4)))).toBe(true);
      expect(await h.run((tx) => tx.pruneAuditEvents(at(4), 2))).toBe(2);
      expect((await search()).items.map((e) => e.versionBefore)).toEqual([5, 4, 3]);
      expect(await h.run((tx) => tx.pruneAuditEvents(at(4), 2))).toBe(1);
      expect(await h.read((tx) => tx.hasAuditEventsBefore(at(4)))).toBe(false);
      expect(await h.run((tx) => tx.pruneAuditEvents(at(4), 2))).toBe(0);
      expect((await search()).items.map((e) => e.versionBefore)).toEqual([5, 4]);
      expect((await h.read((tx) => tx.searchAuditEvents({ tenant: TENANT_B, limit: 10 }))).items).toEqual([]);
    });
  });
