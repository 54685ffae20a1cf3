import { Cause, Effect, Exit } from "effect";
import { describe, expect, it } from "vitest";
import { recordingTx, unmappedWrites } from "../src/audit/audit-recorder.js";
import type { StorageTx } from "../src/storage/storage-port.js";

// The audit recorder knows every write of the storage port: a write method it has no mapping for (a new kind
// of record) is reported by `unmappedWrites`, and dies loudly, naming the fix, when an audited transaction
// uses it, rather than letting a management write go unaudited.

/** A transaction with a mapped write, a declared unaudited one, a read and a write nobody mapped. */
const fakeTx = (): StorageTx =>
  ({
    lock: () => Effect.void,
    findVariable: () => Effect.succeed(undefined),
    insertVariable: () => Effect.void,
    insertAuditEvent: () => Effect.void,
    listWidgets: () => Effect.succeed([]),
    insertWidget: () => Effect.void,
    upsertWidgetSecret: () => Effect.void,
  }) as unknown as StorageTx;

describe("audit recorder coverage", () => {
  it("reports the write methods it has no mapping for, and nothing else", () => {
    expect(unmappedWrites(fakeTx())).toEqual(["insertWidget", "upsertWidgetSecret"]);
  });

  it("an unmapped write in an audited transaction dies, naming where to map it", async () => {
    const { tx } = recordingTx(fakeTx());
    const exit = await Effect.runPromiseExit(
      (tx as unknown as Record<string, () => Effect.Effect<void>>).insertWidget?.() ?? Effect.void,
    );
    expect(Exit.isFailure(exit)).toBe(true);
    if (Exit.isFailure(exit))
      expect(Cause.pretty(exit.cause)).toMatch(/StorageTx\.insertWidget .*AUDITED_TABLES .*audit-recorder\.ts/);
  });

  it("a mapped write is recorded as a change", async () => {
    const recorder = recordingTx(fakeTx());
    const row = { id: "vari0000001", tenant: "t", name: "X" };
    await Effect.runPromise(recorder.tx.insertVariable(row as never));
    expect(recorder.changes()).toEqual([{ kind: "variable", id: row.id, before: undefined, after: row }]);
  });
});
