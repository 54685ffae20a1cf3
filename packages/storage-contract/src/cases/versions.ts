import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { at, provider, server, tool } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** Compare-and-set of providers and servers on their version. */
export const versionCases = (h: Harness) =>
  describe("compare-and-set", () => {
    it("updateProvider applies only at the expected version", async () => {
      const stored = provider(1, { version: 3 });
      const next = { ...stored, name: "next", version: 4, updatedAt: at(50) };
      await h.seed({ providers: [stored] });
      expect(await h.run((tx) => tx.updateProvider(next, 2))).toBe(false);
      expect(await h.run((tx) => tx.updateProvider(next, 4))).toBe(false);
      expect(await h.run((tx) => tx.findProvider(stored.id))).toEqual(stored);
      expect(await h.run((tx) => tx.updateProvider(next, 3))).toBe(true);
      expect(await h.run((tx) => tx.findProvider(stored.id))).toEqual(next);
      // The version moved on: the same write is stale now.
      expect(await h.run((tx) => tx.updateProvider({ ...next, name: "again" }, 3))).toBe(false);
      expect(await h.run((tx) => tx.findProvider(stored.id))).toEqual(next);
    });

    it("updateServer applies only at the expected version, links included", async () => {
      const p1 = provider(1);
      const t1 = tool(1, p1.id);
      const stored = server(1, { version: 3 });
      const next = { ...stored, version: 4, updatedAt: at(50), providers: [{ providerId: p1.id, toolIds: [t1.id] }] };
      await h.seed({ providers: [p1], tools: [t1], servers: [stored] });
      expect(await h.run((tx) => tx.updateServer(next, 2))).toBe(false);
      expect(await h.run((tx) => tx.findServer(stored.id))).toEqual(stored);
      expect(await h.run((tx) => tx.serversReferencing({ kind: "tool", id: t1.id }))).toEqual([]);
      expect(await h.run((tx) => tx.updateServer(next, 3))).toBe(true);
      expect(await h.run((tx) => tx.findServer(stored.id))).toEqual(next);
      expect(await h.run((tx) => tx.serversReferencing({ kind: "tool", id: t1.id }))).toHaveLength(1);
    });

    it("of two concurrent writers expecting the same version, exactly one wins", async () => {
      const stored = provider(1);
      await h.seed({ providers: [stored] });
      const write = (description: string) =>
        h
          .storage()
          .transaction((tx) =>
            Effect.zipRight(Effect.yieldNow(), tx.updateProvider({ ...stored, description, version: 2 }, 1)),
          );
      const applied = await Effect.runPromise(
        Effect.all([write("first"), write("second")], { concurrency: "unbounded" }),
      );
      expect([...applied].sort()).toEqual([false, true]);
      expect(await h.run((tx) => tx.findProvider(stored.id))).toEqual({
        ...stored,
        version: 2,
        description: applied[0] ? "first" : "second",
      });
    });
  });
