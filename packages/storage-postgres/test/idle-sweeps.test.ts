import { Storage, type StorageTx } from "@mcpsm/domain/storage";
import { pruneAuditEvents, sweepExpiredApprovals } from "@mcpsm/domain/use-cases";
import { server } from "@mcpsm/storage-contract";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStorage } from "../src/index.js";
import { commitHeard, migratedStorage, statementRecorder, targets, untilServing } from "./support/targets.js";

// The service sweeps expired approvals every minute and prunes old audit events every hour, on every
// instance. A committed transaction, even one that deleted nothing, tells every instance's point-read cache
// (and the MCP gate's memo, which follows its generation) to drop what it holds: at 10,000 servers called
// round-robin, the minute's empty sweep emptied both before a round could refill them (issue 32). A sweep
// with nothing to delete is one plain read.

for (const target of targets)
  describe(`a periodic sweep with nothing to delete (${target.name})`, () => {
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
    const statements = statementRecorder();
    const s1 = server(1);
    const run = <A>(work: (tx: StorageTx) => Effect.Effect<A, unknown>) => commitHeard(handle, target.name, work);

    beforeAll(async () => {
      handle = await migratedStorage(await target.create(), {
        readCache: { maxAgeMs: 600_000, listen: target.name !== "pglite" },
        onStatement: statements.onStatement,
      });
      await untilServing(handle);
      await run((tx) => tx.insertServer(s1));
    });
    afterAll(() => handle?.dispose());

    /** Runs a sweep use case; answers its result, what it sent and whether the cache's generation moved. */
    const sweep = <A>(work: Effect.Effect<A, unknown, Storage>) =>
      statements.during(handle, () => Effect.runPromise(Effect.provideService(work, Storage, handle.storage)));

    it("an approval sweep reads once: no commit, no notification, the cache kept", async () => {
      const idle = await sweep(sweepExpiredApprovals());
      expect(idle.result).toEqual({ undecided: 0, unused: 0, deleted: 0 });
      expect(idle.sent).toHaveLength(1);
      expect(idle.sent.join(";")).not.toMatch(/commit|notify|begin|delete/i);
      expect(idle.moved).toBe(false);
    });

    it("an audit prune reads once: no commit, no notification, the cache kept", async () => {
      const idle = await sweep(pruneAuditEvents(30));
      expect(idle.result).toBe(0);
      expect(idle.sent).toHaveLength(1);
      expect(idle.sent.join(";")).not.toMatch(/commit|notify|begin|delete/i);
      expect(idle.moved).toBe(false);
    });

    it("an expired approval is still swept, and the sweep then moves the generation", async () => {
      const created = new Date(Date.now() - 20 * 60_000);
      await run((tx) =>
        tx.insertApproval({
          id: `approval${"1".padStart(24, "0")}`,
          tenant: s1.tenant,
          serverId: s1.id,
          toolId: "tool0000001",
          toolName: "deleteThing",
          principal: "server-token:tok",
          argumentsHash: "hash-1",
          argumentsShown: "{}",
          status: "PENDING",
          createdAt: created,
          expiresAt: new Date(created.getTime() + 600_000),
          decidedAt: null,
          decidedBy: "",
        }),
      );
      const busy = await sweep(sweepExpiredApprovals());
      expect(busy.result).toEqual({ undecided: 1, unused: 0, deleted: 1 });
      expect(busy.sent.join(";")).toMatch(/delete from tool_approvals/);
      expect(busy.moved).toBe(true);
    });
  });
