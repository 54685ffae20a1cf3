import type { ServerRevisionRow } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { at, id, MISSING_ID, server, TENANT_B } from "../fixtures.js";
import type { Harness } from "../harness.js";

// Server revisions (docs/api-rules.md §21): stored per (server, version) with their JSON document and
// content as written, listed newest first without them, in pages below a version; pruned below a version;
// gone with their server; rolled back with the transaction that wrote them.

const revision = (serverN: number, version: number, override: Partial<ServerRevisionRow> = {}): ServerRevisionRow => ({
  id: id("rev", serverN * 1000 + version),
  serverId: server(serverN).id,
  tenant: server(serverN).tenant,
  version,
  createdAt: at(version),
  actorSub: "alice",
  actorClientId: "console",
  summary: `version ${version}`,
  document: { format: "mcpsm.server.v1", server: { name: `v${version}` }, providers: [], extra: [1, "two", null] },
  content: { name: `v${version}`, providers: [{ providerId: "p", toolIds: ["t"] }] },
  ...override,
});

const entry = ({ document: _d, content: _c, ...rest }: ServerRevisionRow) => rest;

export const serverRevisionCases = (h: Harness) =>
  describe("server revisions", () => {
    const seeded = () => h.seed({ servers: [server(1), server(2, { tenant: TENANT_B })] });

    it("stores a revision and finds it by server and version, document and content as written", async () => {
      await seeded();
      const row = revision(1, 1);
      await h.run((tx) => tx.insertServerRevision(row));
      expect(await h.read((tx) => tx.findServerRevision(row.serverId, 1))).toEqual(row);
      expect(await h.read((tx) => tx.findServerRevision(row.serverId, 2))).toBeUndefined();
      expect(await h.read((tx) => tx.findServerRevision(MISSING_ID, 1))).toBeUndefined();
    });

    it("lists a server's revisions newest first, in pages below a version, without documents", async () => {
      await seeded();
      await h.run((tx) =>
        Effect.forEach([1, 2, 3, 4, 5], (v) => tx.insertServerRevision(revision(1, v)), { discard: true }),
      );
      await h.run((tx) => tx.insertServerRevision(revision(2, 1)));
      const first = await h.read((tx) => tx.listServerRevisions({ serverId: server(1).id, limit: 2 }));
      expect(first).toEqual({ items: [entry(revision(1, 5)), entry(revision(1, 4))], matchCount: 5 });
      const next = await h.read((tx) => tx.listServerRevisions({ serverId: server(1).id, before: 4, limit: 10 }));
      expect(next.items.map((r) => r.version)).toEqual([3, 2, 1]);
      expect(next.matchCount).toBe(5);
      const empty = await h.read((tx) => tx.listServerRevisions({ serverId: MISSING_ID, limit: 10 }));
      expect(empty).toEqual({ items: [], matchCount: 0 });
    });

    it("prunes a server's revisions below a version, and only that server's", async () => {
      await seeded();
      await h.run((tx) =>
        Effect.forEach([1, 2, 3, 4], (v) => tx.insertServerRevision(revision(1, v)), { discard: true }),
      );
      await h.run((tx) => tx.insertServerRevision(revision(2, 1)));
      await h.run((tx) => tx.pruneServerRevisions(server(1).id, 3));
      const left = await h.read((tx) => tx.listServerRevisions({ serverId: server(1).id, limit: 10 }));
      expect(left.items.map((r) => r.version)).toEqual([4, 3]);
      expect(await h.read((tx) => tx.findServerRevision(server(2).id, 1))).toEqual(revision(2, 1));
    });

    it("goes with its server, and with a transaction that fails", async () => {
      await seeded();
      await h.run((tx) => tx.insertServerRevision(revision(1, 1)));
      await h.failure((tx) => Effect.zipRight(tx.insertServerRevision(revision(1, 2)), Effect.fail("rolled back")));
      expect(await h.read((tx) => tx.findServerRevision(server(1).id, 2))).toBeUndefined();
      await h.run((tx) => tx.deleteServer(server(1).id));
      expect(await h.read((tx) => tx.findServerRevision(server(1).id, 1))).toBeUndefined();
    });
  });
