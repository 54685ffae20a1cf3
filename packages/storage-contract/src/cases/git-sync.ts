import type { GitSyncClaim } from "@mcpsm/domain/storage";
import { describe, expect, it } from "vitest";
import { at, gitConnection, provider, providerId, server, TENANT_B, tool, toolId } from "../fixtures.js";
import type { Harness } from "../harness.js";

// Git connections and the git outbox (docs/api-rules.md §17): connections are named uniquely per tenant and
// leave the servers using them without a connection; a write notes the servers to push (itself, or every
// server using a changed provider) in its own transaction; a claim leases due, quiet entries to one owner
// only; a settle applies only under the lease and keeps later changes pending.

const claim = (owner: string, seconds: number, override: Partial<GitSyncClaim> = {}): GitSyncClaim => ({
  owner,
  now: at(seconds),
  leaseUntil: at(seconds + 60),
  quietSince: at(seconds),
  pendingBefore: at(seconds - 600),
  limit: 10,
  ...override,
});

export const gitSyncCases = (h: Harness) =>
  describe("git connections and the git outbox", () => {
    const conn = gitConnection(1, { kind: "GITLAB", baseURL: "https://gitlab.example.com" });
    const synced = server(1, { gitConnectionId: conn.id, gitRepoFullName: "team/mcp-config" });
    const noted = (ids: ReadonlyArray<string>, seconds: number, reason = "") =>
      h.run((tx) => tx.noteGitSyncChanges({ serverIds: ids, providerIds: [] }, at(seconds), reason));

    it("stores, finds, lists and counts connections per tenant; names are unique per tenant", async () => {
      const other = gitConnection(2, { tenant: TENANT_B, name: conn.name });
      await h.run((tx) => tx.insertGitConnection(conn));
      await h.run((tx) => tx.insertGitConnection(other));
      await h.run((tx) => tx.insertGitConnection(gitConnection(3)));
      expect(await h.read((tx) => tx.findGitConnection(conn.id))).toEqual(conn);
      expect((await h.read((tx) => tx.listGitConnections(conn.tenant))).map((c) => c.id)).toEqual([
        conn.id,
        gitConnection(3).id,
      ]);
      expect(await h.read((tx) => tx.countGitConnections(TENANT_B))).toBe(1);
      const clash = await h.failure((tx) => tx.insertGitConnection(gitConnection(4, { name: conn.name })));
      expect(clash).toMatchObject({ _tag: "UniqueViolation", kind: "gitConnection", name: conn.name });
    });

    it("a server graph shows its connection's kind; deleting the connection unsets it on the server", async () => {
      await h.run((tx) => tx.insertGitConnection(conn));
      await h.seed({ servers: [synced] });
      expect((await h.read((tx) => tx.findServerGraph(synced.id)))?.gitProvider).toBe("GITLAB");
      expect(await h.read((tx) => tx.serversReferencing({ kind: "gitConnection", id: conn.id }))).toEqual([
        { id: synced.id, tenant: synced.tenant },
      ]);
      await h.run((tx) => tx.deleteGitConnection(conn.id));
      const after = await h.read((tx) => tx.findServer(synced.id));
      expect(after).toMatchObject({ gitConnectionId: null, gitRepoFullName: "team/mcp-config", version: 1 });
      expect((await h.read((tx) => tx.findServerGraph(synced.id)))?.gitProvider ?? null).toBeNull();
    });

    it("a server naming a missing connection is a ReferenceViolation", async () => {
      const failure = await h.failure((tx) => tx.insertServer(synced));
      expect(failure).toMatchObject({ _tag: "ReferenceViolation", kind: "server" });
    });

    it("notes changes of connected servers only, counting them, and turns a disconnected one OFF", async () => {
      await h.run((tx) => tx.insertGitConnection(conn));
      await h.seed({ servers: [synced, server(2)] });
      await noted([synced.id, server(2).id], 10);
      expect(await h.read((tx) => tx.findGitSync(server(2).id))).toBeUndefined();
      expect(await h.read((tx) => tx.findGitSync(synced.id))).toMatchObject({
        serverId: synced.id,
        tenant: synced.tenant,
        state: "PENDING",
        changeSeq: 1,
        pushedSeq: 0,
        changedAt: at(10),
        pendingSince: at(10),
        nextAttemptAt: at(10),
        commit: "",
        pushedAt: null,
      });
      await noted([synced.id], 12);
      expect(await h.read((tx) => tx.findGitSync(synced.id))).toMatchObject({
        changeSeq: 2,
        changedAt: at(12),
        pendingSince: at(10),
      });
      await h.run((tx) => tx.updateServer({ ...synced, version: 2, gitConnectionId: null }, 1));
      await noted([synced.id], 14, "disconnected");
      expect(await h.read((tx) => tx.findGitSync(synced.id))).toMatchObject({
        state: "OFF",
        error: "disconnected",
        pushedSeq: 2,
      });
      expect(await h.read((tx) => tx.claimGitSyncs(claim("a", 100)))).toEqual([]);
    });

    it("a changed provider notes every connected server using it", async () => {
      const p = provider(1);
      await h.run((tx) => tx.insertGitConnection(conn));
      await h.seed({
        providers: [p, provider(2)],
        tools: [tool(1, p.id)],
        servers: [
          { ...synced, providers: [{ providerId: p.id, toolIds: [toolId(1)] }] },
          server(2, {
            gitConnectionId: conn.id,
            gitRepoFullName: "team/other",
            providers: [{ providerId: providerId(2), toolIds: [] }],
          }),
        ],
      });
      await h.run((tx) => tx.noteGitSyncChanges({ serverIds: [], providerIds: [p.id] }, at(20), ""));
      expect(await h.read((tx) => tx.findGitSync(synced.id))).toMatchObject({ state: "PENDING", changeSeq: 1 });
      expect(await h.read((tx) => tx.findGitSync(server(2).id))).toBeUndefined();
    });

    it("claims due and quiet entries for one owner at a time; a lease runs out", async () => {
      await h.run((tx) => tx.insertGitConnection(conn));
      await h.seed({ servers: [synced] });
      await noted([synced.id], 30);
      // Not quiet yet (the last change is after quietSince) and not pending for long: not due.
      expect(await h.run((tx) => tx.claimGitSyncs(claim("a", 30, { quietSince: at(29) })))).toEqual([]);
      // Pending for long enough: due even though changes keep coming.
      const [first] = await h.run((tx) =>
        tx.claimGitSyncs(claim("a", 31, { quietSince: at(29), pendingBefore: at(30) })),
      );
      expect(first).toMatchObject({ serverId: synced.id, leaseOwner: "a", leaseUntil: at(91), changeSeq: 1 });
      expect(await h.run((tx) => tx.claimGitSyncs(claim("b", 40)))).toEqual([]);
      const [stolen] = await h.run((tx) => tx.claimGitSyncs(claim("b", 92)));
      expect(stolen).toMatchObject({ leaseOwner: "b" });
      // The first owner lost its lease: its settle changes nothing.
      const late = { kind: "pushed", seq: 1, commit: "c0ffee", at: at(93), repo: "r", folder: "f" } as const;
      expect(await h.run((tx) => tx.settleGitSync(synced.id, "a", late))).toBe(false);
      expect(await h.read((tx) => tx.findGitSync(synced.id))).toMatchObject({ state: "PENDING", pushedSeq: 0 });
    });

    it("tells, with a read, whether a claim would lease anything: the same conditions", async () => {
      const due = (c: GitSyncClaim) => h.read((tx) => tx.hasDueGitSyncs(c));
      await h.run((tx) => tx.insertGitConnection(conn));
      await h.seed({ servers: [synced] });
      expect(await due(claim("a", 100))).toBe(false); // nothing noted yet
      await noted([synced.id], 30);
      expect(await due(claim("a", 30, { quietSince: at(29) }))).toBe(false); // not quiet, not pending long
      expect(await due(claim("a", 31, { quietSince: at(29), pendingBefore: at(30) }))).toBe(true);
      expect(await due(claim("a", 31))).toBe(true);
      await h.run((tx) => tx.claimGitSyncs(claim("a", 31)));
      expect(await due(claim("b", 40))).toBe(false); // leased
      expect(await due(claim("b", 92))).toBe(true); // the lease ran out
      const failed = { kind: "failed", error: "unreachable", retryAt: at(120) } as const;
      await h.run((tx) => tx.settleGitSync(synced.id, "a", failed));
      expect(await due(claim("a", 100))).toBe(false); // waiting for its retry
      expect(await due(claim("a", 120))).toBe(true);
      // Checking leased nothing: the claim still gets the entry.
      expect(await h.run((tx) => tx.claimGitSyncs(claim("a", 120)))).toHaveLength(1);
      await h.run((tx) => tx.updateServer({ ...synced, version: 2, gitConnectionId: null }, 1));
      await noted([synced.id], 130, "disconnected");
      expect(await due(claim("a", 1000))).toBe(false); // OFF
    });

    it("concurrent claims never lease the same entry twice", async () => {
      await h.run((tx) => tx.insertGitConnection(conn));
      const servers = Array.from({ length: 6 }, (_, i) =>
        server(i + 1, { gitConnectionId: conn.id, gitRepoFullName: `team/r${i}` }),
      );
      await h.seed({ servers });
      await noted(
        servers.map((s) => s.id),
        10,
      );
      const claims = await Promise.all(
        ["a", "b", "c"].map((owner) => h.run((tx) => tx.claimGitSyncs(claim(owner, 20, { limit: 3 })))),
      );
      const ids = claims.flat().map((row) => row.serverId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(6);
    });

    it("settling a push keeps later changes pending; a failure counts attempts and waits", async () => {
      await h.run((tx) => tx.insertGitConnection(conn));
      await h.seed({ servers: [synced] });
      await noted([synced.id], 10);
      await h.run((tx) => tx.claimGitSyncs(claim("a", 20)));
      const failed = { kind: "failed", error: "authentication failed", retryAt: at(40) } as const;
      expect(await h.run((tx) => tx.settleGitSync(synced.id, "a", failed))).toBe(true);
      expect(await h.read((tx) => tx.findGitSync(synced.id))).toMatchObject({
        state: "FAILED",
        error: "authentication failed",
        attempts: 1,
        nextAttemptAt: at(40),
        leaseOwner: null,
      });
      expect(await h.run((tx) => tx.claimGitSyncs(claim("a", 30)))).toEqual([]);
      const [again] = await h.run((tx) => tx.claimGitSyncs(claim("a", 41)));
      expect(again?.changeSeq).toBe(1);
      await noted([synced.id], 42); // a change while the push runs
      const pushed = { kind: "pushed", seq: 1, commit: "abc123", at: at(43), repo: "u", folder: "f" } as const;
      expect(await h.run((tx) => tx.settleGitSync(synced.id, "a", pushed))).toBe(true);
      expect(await h.read((tx) => tx.findGitSync(synced.id))).toMatchObject({
        state: "PENDING",
        pushedSeq: 1,
        changeSeq: 2,
        commit: "abc123",
        pushedAt: at(43),
        error: "",
        attempts: 0,
        pushedRepo: "u",
        pushedFolder: "f",
      });
      await h.run((tx) => tx.claimGitSyncs(claim("a", 50)));
      await h.run((tx) => tx.settleGitSync(synced.id, "a", { ...pushed, seq: 2, commit: "def456" }));
      expect(await h.read((tx) => tx.findGitSync(synced.id))).toMatchObject({
        state: "SYNCED",
        pushedSeq: 2,
        pendingSince: null,
      });
    });

    it("deleting a server deletes its outbox entry", async () => {
      await h.run((tx) => tx.insertGitConnection(conn));
      await h.seed({ servers: [synced] });
      await noted([synced.id], 10);
      await h.run((tx) => tx.deleteServer(synced.id));
      expect(await h.read((tx) => tx.findGitSync(synced.id))).toBeUndefined();
    });

    it("git tokens are listed and replaced as secrets", async () => {
      await h.run((tx) => tx.insertGitConnection(conn));
      const secrets = await h.read((tx) => tx.listSecrets(undefined, 100));
      expect(secrets).toEqual([{ kind: "gitConnectionToken", id: conn.id, ciphertext: conn.tokenCipher }]);
      const replaced = await h.run((tx) => tx.replaceSecret(secrets[0]!, "v1.n.rotated"));
      expect(replaced).toBe(true);
      expect(await h.read((tx) => tx.findGitConnection(conn.id))).toEqual({ ...conn, tokenCipher: "v1.n.rotated" });
    });
  });
