import type { GitSyncClaim, StorageTx } from "@mcpsm/domain/storage";
import { gitConnection, server } from "@mcpsm/storage-contract";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStorage } from "../src/index.js";
import { commitHeard, migratedStorage, statementRecorder, targets, untilServing } from "./support/targets.js";

// The git outbox worker polls every second (packages/git-sync). A committed transaction tells every
// instance's point-read cache to drop what it holds, so the poll's check for due entries must be a plain
// read: an idle poll sends no COMMIT, no NOTIFY, and leaves the cache's generation where it was (issue 32).

for (const target of targets)
  describe(`an idle git outbox poll (${target.name})`, () => {
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
    const statements = statementRecorder();
    const conn = gitConnection(1);
    const synced = server(1, { gitConnectionId: conn.id, gitRepoFullName: "team/mcp-config" });
    const base = Date.UTC(2030, 0, 1);
    const claim = (seconds: number): GitSyncClaim => ({
      owner: "a",
      now: new Date(base + seconds * 1000),
      leaseUntil: new Date(base + (seconds + 60) * 1000),
      quietSince: new Date(base + (seconds - 2) * 1000),
      pendingBefore: new Date(base + (seconds - 30) * 1000),
      limit: 4,
    });
    const run = <A>(work: (tx: StorageTx) => Effect.Effect<A, unknown>) => commitHeard(handle, target.name, work);

    beforeAll(async () => {
      handle = await migratedStorage(await target.create(), {
        readCache: { maxAgeMs: 600_000, listen: target.name !== "pglite" },
        onStatement: statements.onStatement,
      });
      await untilServing(handle);
      await run((tx) => tx.insertGitConnection(conn));
      await run((tx) => tx.insertServer(synced));
      // Changed at second 10: not due before second 12 (the debounce).
      await run((tx) =>
        tx.noteGitSyncChanges({ serverIds: [synced.id], providerIds: [] }, new Date(base + 10_000), ""),
      );
    });
    afterAll(() => handle?.dispose());

    /** The check the worker runs, and what it sent and did to the cache's generation. */
    const check = async (seconds: number) => {
      const { result: due, ...rest } = await statements.during(handle, () =>
        Effect.runPromise(handle.storage.read((tx) => tx.hasDueGitSyncs(claim(seconds)))),
      );
      return { due, ...rest };
    };

    it("finds nothing due with one read: no commit, no notification, the cache kept", async () => {
      const idle = await check(11);
      expect(idle.due).toBe(false);
      expect(idle.sent).toHaveLength(1);
      expect(idle.sent.join(";")).not.toMatch(/commit|notify|begin|update/i);
      expect(idle.moved).toBe(false);
      expect(await run((tx) => tx.claimGitSyncs(claim(11)))).toEqual([]);
    });

    it("finds a due entry the same way, and the claim then leases it", async () => {
      const busy = await check(12);
      expect(busy).toMatchObject({ due: true, moved: false });
      const [claimed] = await run((tx) => tx.claimGitSyncs(claim(12)));
      expect(claimed).toMatchObject({ serverId: synced.id, leaseOwner: "a" });
      expect((await check(13)).due).toBe(false);
    });
  });
