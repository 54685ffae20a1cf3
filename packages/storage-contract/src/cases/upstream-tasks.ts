import type { UpstreamTaskRow } from "@mcpsm/domain/storage";
import { describe, expect, it } from "vitest";
import { at } from "../fixtures.js";
import type { Harness } from "../harness.js";

/** Tasks of long-running upstream operations (docs/api-rules.md §22): compare-and-set on the status, expiry. */
export const upstreamTaskCases = (h: Harness) =>
  describe("upstream tasks", () => {
    const task = (n: number, override: Partial<UpstreamTaskRow> = {}): UpstreamTaskRow => ({
      id: `task-${n}`,
      owner: "caller-key",
      status: "working",
      statusMessage: "the upstream accepted the request",
      result: null,
      pollIntervalMs: 2000,
      createdAt: at(n),
      lastUpdatedAt: at(n),
      deadline: at(n + 900),
      expiresAt: at(n + 1500),
      ...override,
    });

    it("stores and finds a task; an update applies only from the expected status, once", async () => {
      await h.run((tx) => tx.insertUpstreamTask(task(1)));
      expect(await h.read((tx) => tx.findUpstreamTask("task-1"))).toEqual(task(1));
      expect(await h.read((tx) => tx.findUpstreamTask("task-2"))).toBeUndefined();
      const done = { ...task(1), status: "completed" as const, result: '{"content":[]}', lastUpdatedAt: at(5) };
      expect(await h.run((tx) => tx.updateUpstreamTask(done, "working"))).toBe(true);
      const cancelled = { ...task(1), status: "cancelled" as const, lastUpdatedAt: at(6) };
      expect(await h.run((tx) => tx.updateUpstreamTask(cancelled, "working"))).toBe(false);
      // The owner and creation time are the stored ones whatever the update says.
      expect(
        await h.run((tx) => tx.updateUpstreamTask({ ...done, owner: "other", createdAt: at(9) }, "completed")),
      ).toBe(true);
      expect(await h.read((tx) => tx.findUpstreamTask("task-1"))).toEqual(done);
    });

    it("deletes expired tasks in batches", async () => {
      await h.run((tx) => tx.insertUpstreamTask(task(1)));
      await h.run((tx) => tx.insertUpstreamTask(task(2, { expiresAt: at(1501) })));
      await h.run((tx) => tx.insertUpstreamTask(task(3, { expiresAt: at(3000) })));
      expect(await h.run((tx) => tx.deleteExpiredUpstreamTasks(at(1500), 10))).toBe(0);
      expect(await h.run((tx) => tx.deleteExpiredUpstreamTasks(at(1501), 1))).toBe(1);
      expect(await h.run((tx) => tx.deleteExpiredUpstreamTasks(at(1501), 10))).toBe(1);
      expect(await h.read((tx) => tx.findUpstreamTask("task-3"))).toEqual(task(3, { expiresAt: at(3000) }));
    });
  });
