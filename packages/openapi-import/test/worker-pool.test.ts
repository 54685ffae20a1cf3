import { afterAll, describe, expect, it } from "vitest";
import { WorkerPool } from "../src/worker/worker-pool.js";

// The pool that reads descriptions off the event loop (issue 24): a job past its deadline or its worker's heap
// limit ends that worker, is answered with the limit it broke, and a new worker takes the next job.

const poolOf = (deadlineMs: number, startupMs?: number) =>
  new WorkerPool<string, string>({
    ...(startupMs === undefined ? {} : { startupMs }),
    script: new URL("./support/greedy-worker.mjs", import.meta.url),
    size: 1,
    queue: 1,
    deadlineMs,
    idleMs: 1_000,
    resourceLimits: { maxOldGenerationSizeMb: 32, stackSizeMb: 4 },
  });
// The heap fills long before a minute, even on a loaded machine; spinning passes 300 ms.
const roomy = poolOf(60_000);
const pool = poolOf(300);
// No thread loads its modules within a millisecond.
const starved = poolOf(60_000, 1);
afterAll(() => Promise.all([roomy.close(), pool.close(), starved.close()]));

describe("WorkerPool", () => {
  it("answers a job, then ends a worker that runs out of memory or time, and replaces it", async () => {
    expect(await roomy.run("a").outcome).toEqual({ kind: "done", reply: "echo a" });
    expect(await roomy.run("grow").outcome).toEqual({ kind: "memory" });
    expect(await roomy.run("b").outcome).toEqual({ kind: "done", reply: "echo b" });
    expect(await pool.run("spin").outcome).toEqual({ kind: "deadline" });
    expect(await pool.run("c").outcome).toEqual({ kind: "done", reply: "echo c" });
  });

  it("answers unstarted when a worker cannot load in time (a machine out of CPU), and ends that worker", async () => {
    expect(await starved.run("a").outcome).toEqual({ kind: "unstarted" });
    expect(await starved.run("b").outcome).toEqual({ kind: "unstarted" });
  });

  it("answers busy when its workers and its queue are full", async () => {
    const running = pool.run("spin");
    const waiting = pool.run("d");
    expect(await pool.run("e").outcome).toEqual({ kind: "busy" });
    expect(await running.outcome).toEqual({ kind: "deadline" });
    expect(await waiting.outcome).toEqual({ kind: "done", reply: "echo d" });
  });
});
