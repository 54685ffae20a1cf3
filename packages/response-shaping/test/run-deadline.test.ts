import { describe, expect, it } from "vitest";
import { nextRunCheck, WALL_CAP_FACTOR } from "../src/sandbox/run-deadline.js";

// A sandboxed run's budget is the thread's CPU time, capped in wall time (src/sandbox/run-deadline.ts).

describe("when a sandboxed run has had its budget", () => {
  it("stops a run that spent its budget of CPU", () => {
    expect(nextRunCheck({ budgetMs: 100, elapsedMs: 100, cpuMs: 99.5 })).toEqual({ stop: true });
    expect(nextRunCheck({ budgetMs: 100, elapsedMs: 130, cpuMs: 120 })).toEqual({ stop: true });
  });

  it("lets a run that waited for a core go on for the CPU it has left", () => {
    expect(nextRunCheck({ budgetMs: 100, elapsedMs: 100, cpuMs: 5 })).toEqual({ stop: false, waitMs: 95 });
    expect(nextRunCheck({ budgetMs: 100, elapsedMs: 300, cpuMs: 60 })).toEqual({ stop: false, waitMs: 40 });
  });

  it("never lets a run take more than the wall cap, whatever CPU it got", () => {
    const cap = 100 * WALL_CAP_FACTOR;
    expect(nextRunCheck({ budgetMs: 100, elapsedMs: cap - 20, cpuMs: 10 })).toEqual({ stop: false, waitMs: 20 });
    expect(nextRunCheck({ budgetMs: 100, elapsedMs: cap, cpuMs: 10 })).toEqual({ stop: true });
  });

  it("falls back to the wall clock when the thread's CPU time cannot be read", () => {
    expect(nextRunCheck({ budgetMs: 100, elapsedMs: 100, cpuMs: undefined })).toEqual({ stop: true });
    expect(nextRunCheck({ budgetMs: 100, elapsedMs: 40, cpuMs: undefined })).toEqual({ stop: false, waitMs: 60 });
  });
});
