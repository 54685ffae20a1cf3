import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { collectAllGarbage } from "../src/launcher/memory-reducing-collection.js";

describe("the memory-reducing collection (after start-up, when quiet)", () => {
  it("frees what nothing references any more, and leaves what is referenced", async () => {
    let dropped: Array<Array<number>> | undefined = Array.from({ length: 64 }, (_, i) => [i]);
    const kept = Array.from({ length: 64 }, (_, i) => [i]);
    const droppedRef = new WeakRef(dropped);
    const keptRef = new WeakRef(kept);
    dropped = undefined;
    // A WeakRef's target stays alive until the job that created the WeakRef has ended.
    await nextTurn();
    collectAllGarbage();
    expect(droppedRef.deref()).toBeUndefined();
    expect(keptRef.deref()).toBe(kept);
    expect(dropped).toBeUndefined();
  });

  it("can run again, and does not expose `gc` on the global object", async () => {
    collectAllGarbage();
    let dropped: object | undefined = { big: new Array(1_000).fill(1) };
    const ref = new WeakRef(dropped);
    dropped = undefined;
    await nextTurn();
    collectAllGarbage();
    expect(ref.deref()).toBeUndefined();
    expect(dropped).toBeUndefined();
    expect("gc" in globalThis).toBe(false);
  });
});
