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

describe("audit recorder reads", () => {
  it("remembers the providers and the tools of findProvidersAndTools as their state before a write", async () => {
    const provider = { id: "prov0000001", tenant: "t", name: "P", version: 1 };
    const tool = { id: "tool0000001", providerId: provider.id, name: "T" };
    const tx = {
      findProvidersAndTools: () => Effect.succeed({ providers: [provider], tools: [tool] }),
      // Reading a row again would mean the recorder forgot it: these die.
      findProvider: () => Effect.dieMessage("provider read again"),
      findTool: () => Effect.dieMessage("tool read again"),
      updateProvider: () => Effect.succeed(true),
      updateTool: () => Effect.void,
    } as unknown as StorageTx;
    const recorder = recordingTx(tx);
    const changedProvider = { ...provider, name: "P2", version: 2 };
    const changedTool = { ...tool, name: "T2" };
    await Effect.runPromise(
      Effect.gen(function* () {
        yield* recorder.tx.findProvidersAndTools([provider.id], [tool.id]);
        yield* recorder.tx.updateProvider(changedProvider as never, 1);
        yield* recorder.tx.updateTool(changedTool as never);
      }),
    );
    expect(recorder.changes()).toEqual([
      { kind: "provider", id: provider.id, before: provider, after: changedProvider },
      { kind: "tool", id: tool.id, before: tool, after: changedTool },
    ]);
  });
});
