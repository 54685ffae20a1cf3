import { describe, expect, it } from "vitest";
import { UpstreamTasks } from "../src/long-running/upstream-tasks.js";
import type { Watch, WatchStep } from "../src/long-running/watch.js";

// docs/api-rules.md §22: a task looks at its upstream at most once per interval, one look in flight shared by
// every concurrent tasks/get, and not at all between polls (on a clock of the test's own).

const bounds = { intervalMs: 1_000, taskDeadlineMs: 60_000, callDeadlineMs: 10_000 };
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

describe("UpstreamTasks", () => {
  it("looks at most once per interval, however often it is polled", async () => {
    let now = 0;
    const tasks = new UpstreamTasks(bounds, () => now);
    const { watch, looks } = counting();
    const task = tasks.create("caller", url, undefined, watch);
    await Promise.all(Array.from({ length: 100 }, () => tasks.get("caller", task.taskId)));
    expect(looks()).toBe(0);
    now = 1_000;
    await Promise.all(Array.from({ length: 100 }, () => tasks.get("caller", task.taskId)));
    expect(looks()).toBe(1);
    now = 1_999;
    await tasks.get("caller", task.taskId);
    expect(looks()).toBe(1);
    now = 2_000;
    await tasks.get("caller", task.taskId);
    expect(looks()).toBe(2);
  });

  it("waits as long as the upstream's Retry-After asks, within the bounds", async () => {
    let now = 0;
    const tasks = new UpstreamTasks(bounds, () => now);
    const { watch, looks } = counting([{ kind: "working", waitMs: 5_000 }]);
    const task = tasks.create("caller", url, 3_000, watch);
    expect(task.pollIntervalMs).toBe(3_000);
    now = 2_999;
    await tasks.get("caller", task.taskId);
    expect(looks()).toBe(0);
    now = 3_000;
    expect((await tasks.get("caller", task.taskId))?.pollIntervalMs).toBe(5_000);
    now = 7_999;
    await tasks.get("caller", task.taskId);
    expect(looks()).toBe(1);
  });

  it("a finished task keeps its result without looking again; another owner sees nothing", async () => {
    let now = 0;
    const tasks = new UpstreamTasks(bounds, () => now);
    const result = { content: [{ type: "text" as const, text: "done" }] };
    const { watch, looks } = counting([{ kind: "done", result }]);
    const task = tasks.create("caller", url, undefined, watch);
    now = 1_000;
    expect(await tasks.get("caller", task.taskId)).toMatchObject({ status: "completed", result });
    now = 50_000;
    expect(await tasks.get("caller", task.taskId)).toMatchObject({ status: "completed", result });
    expect(looks()).toBe(1);
    expect(await tasks.get("someone else", task.taskId)).toBeUndefined();
    expect(tasks.cancel("someone else", task.taskId)).toBe(false);
  });

  it("expired tasks are dropped when new ones are made", () => {
    let now = 0;
    const tasks = new UpstreamTasks(bounds, () => now);
    const old = tasks.create("caller", url, undefined, counting().watch);
    now = old.ttlMs + 1;
    tasks.create("caller", url, undefined, counting().watch);
    expect(tasks.size).toBe(1);
  });
});
