import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { storedTaskRecords } from "../src/long-running/task-records.js";
import { UpstreamTasks } from "../src/long-running/upstream-tasks.js";
import type { Watch, WatchStep } from "../src/long-running/watch.js";
import { makeServices } from "./support/harness.js";

// docs/api-rules.md §22: the instance that created a task looks at its upstream once per wait on a timer of
// its own, whoever polls; two registries on one store (two instances) share the task; a task whose poller is
// gone fails after its deadline and grace. The clock and timers are the test's (vitest's fake timers).

const bounds = { intervalMs: 1_000, taskDeadlineMs: 60_000, callDeadlineMs: 10_000 };
const GRACE_MS = 5_000;
const url = new URL("http://upstream.test/ops/1");

/** A watch counting its looks, answering each with `steps` in turn (working once they run out). */
const counting = (steps: Array<WatchStep> = []) => {
  let looks = 0;
  const watch: Watch = async () => {
    looks++;
    return steps.shift() ?? { kind: "working" };
  };
  return { watch, looks: () => looks };
};

/** Two instances' registries over one store. */
const instances = () => {
  const records = storedTaskRecords(makeServices());
  return { a: new UpstreamTasks(bounds, records, GRACE_MS), b: new UpstreamTasks(bounds, records, GRACE_MS) };
};

const created = async (tasks: UpstreamTasks, watch: Watch, firstWaitMs?: number) => {
  const task = await tasks.create("caller", url, firstWaitMs, watch);
  if (task === undefined) throw new Error("the task was not stored");
  return task;
};

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("UpstreamTasks", () => {
  it("looks once per interval on its own timer, however often it is polled, from any instance", async () => {
    const { a, b } = instances();
    const { watch, looks } = counting();
    const task = await created(a, watch);
    await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).get("caller", task.taskId)));
    expect(looks()).toBe(0);
    await vi.advanceTimersByTimeAsync(999);
    expect(looks()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(looks()).toBe(1);
    await Promise.all(Array.from({ length: 50 }, () => b.get("caller", task.taskId)));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(looks()).toBe(2);
    expect(b.size).toBe(0);
    a.close();
  });

  it("waits as long as the upstream's Retry-After asks, within the bounds, and says so", async () => {
    const { a, b } = instances();
    const { watch, looks } = counting([{ kind: "working", waitMs: 5_000, message: "Running" }]);
    const task = await created(a, watch, 3_000);
    expect(task.pollIntervalMs).toBe(3_000);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(looks()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await b.get("caller", task.taskId)).toMatchObject({ pollIntervalMs: 5_000, statusMessage: "Running" });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(looks()).toBe(1);
    a.close();
  });

  it("a finished task is read on another instance with its result; another owner sees nothing", async () => {
    const { a, b } = instances();
    const result = { content: [{ type: "text" as const, text: "done" }] };
    const { watch, looks } = counting([{ kind: "done", result }]);
    const task = await created(a, watch);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await b.get("caller", task.taskId)).toMatchObject({ status: "completed", result });
    expect(a.size).toBe(0);
    await vi.advanceTimersByTimeAsync(50_000);
    expect(await b.get("caller", task.taskId)).toMatchObject({ status: "completed", result });
    expect(looks()).toBe(1);
    expect(await b.get("someone else", task.taskId)).toBeUndefined();
    expect(await b.cancel("someone else", task.taskId)).toBe(false);
  });

  it("a cancel on another instance stops the creator's polling before its next look", async () => {
    const { a, b } = instances();
    const { watch, looks } = counting();
    const task = await created(a, watch);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await b.cancel("caller", task.taskId)).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(looks()).toBe(1);
    expect(a.size).toBe(0);
    expect((await a.get("caller", task.taskId))?.status).toBe("cancelled");
  });

  it("a task whose poller is gone (its instance stopped) fails once its deadline's grace has passed", async () => {
    const { a, b } = instances();
    const orphan = await created(a, counting().watch);
    a.close();
    await vi.advanceTimersByTimeAsync(bounds.taskDeadlineMs + GRACE_MS - 1);
    expect((await b.get("caller", orphan.taskId))?.status).toBe("working");
    await vi.advanceTimersByTimeAsync(1);
    const failed = await b.get("caller", orphan.taskId);
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603 } });
    expect(failed?.result).toBeUndefined();
    expect(failed?.statusMessage).toContain("stopped before it finished");
  });

  it("a live creator completes an overdue task with the deadline's tool error", async () => {
    const { a, b } = instances();
    const task = await created(a, counting().watch);
    await vi.advanceTimersByTimeAsync(bounds.taskDeadlineMs);
    expect(await b.get("caller", task.taskId)).toMatchObject({
      status: "completed",
      result: {
        isError: true,
        content: [{ type: "text", text: "the upstream operation did not finish within 60000 ms" }],
      },
    });
    expect(a.size).toBe(0);
  });
});
