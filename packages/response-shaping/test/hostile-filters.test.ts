import { afterAll, describe, expect, it } from "vitest";
import {
  applyFilter,
  boundedTokenCount,
  type CompiledFilter,
  closeSandboxes,
  compileFilter,
  countTokens,
  EXACT_COUNT_MAX_CHARS,
  FilterSandbox,
  isSuspect,
  OUTPUT_FLOOR_CHARS,
  type ResponseFilter,
} from "../src/index.js";

// Issue 28's hostile filters: the bounds beyond the deadline (output, in-process work, a lane of their own
// for filters that overran, token counts at a bounded cost). bench/hostile-filters.mjs measures the service.

const own = new FilterSandbox();
afterAll(async () => {
  await own.close();
  await closeSandboxes();
});

const compiled = async (filter: ResponseFilter): Promise<CompiledFilter> => {
  const outcome = await compileFilter(filter, { sandbox: own });
  if (!outcome.ok) throw new Error(outcome.problem.message);
  return outcome.filter;
};

const listOf = (n: number) => ({
  data: Array.from({ length: n }, (_, i) => ({ id: `id${i}`, name: `Name ${i}`, email: `u${i}@example.com` })),
});

describe("hostile filters", () => {
  it("refuses an output larger than the input (or 256 KiB), naming the budget", async () => {
    const huge = await compiled({ language: "jq", expression: "[limit(200000; repeat(.))]" });
    const outcome = await applyFilter(huge, { a: 1 }, { sandbox: own, budget: { deadlineMs: 10_000 } });
    expect(outcome).toMatchObject({ ok: false, reason: "over-budget" });
    if (!outcome.ok) expect(outcome.message).toContain(`budget of ${OUTPUT_FLOOR_CHARS} characters`);
    // The same growth within the floor is an answer.
    const small = await compiled({ language: "jq", expression: "[limit(1000; repeat(.))]" });
    expect(await applyFilter(small, { a: 1 }, { sandbox: own })).toMatchObject({ ok: true });
  });

  it("sends a cost-bounded JMESPath to the sandbox when its input times its bound is too much work", async () => {
    const copies = await compiled({ language: "jmespath", expression: `[${Array(16).fill("@").join(",")}]` });
    expect(copies.inProcess).toBe(true);
    const value = listOf(5000);
    const text = JSON.stringify(value);
    const counting = new FilterSandbox();
    let runs = 0;
    const run = counting.run.bind(counting);
    counting.run = (request, deadlineMs) => {
      runs += 1;
      return run(request, deadlineMs);
    };
    const outcome = await applyFilter(copies, value, { sandbox: counting, text, budget: { deadlineMs: 10_000 } });
    await counting.close();
    expect(runs).toBe(1);
    expect(outcome).toMatchObject({ ok: false, reason: "over-budget" });
    if (!outcome.ok) expect(outcome.message).toContain(`budget of ${text.length} characters`);
    // On a small input it stays in the caller's thread.
    expect(await applyFilter(copies, { a: 1 }, { sandbox: counting })).toMatchObject({ ok: true });
    expect(runs).toBe(1);
  });

  it("runs a filter that overran in a lane of its own, so others do not wait behind it", async () => {
    const spin = await compiled({ language: "jq", expression: "def f: f; f" });
    expect(isSuspect(spin)).toBe(false);
    // One overrun may be a busy machine's; the second makes the filter suspect.
    expect(await applyFilter(spin, { a: 1 })).toMatchObject({ ok: false, reason: "over-budget" });
    expect(isSuspect(spin)).toBe(false);
    expect(await applyFilter(spin, { a: 1 })).toMatchObject({ ok: false, reason: "over-budget" });
    expect(isSuspect(spin)).toBe(true);
    const order: Array<string> = [];
    const spinning = applyFilter(spin, { a: 1 }, { budget: { deadlineMs: 3000 } }).then((outcome) => {
      order.push("spin");
      return outcome;
    });
    const cheap = await applyFilter(await compiled({ language: "jq", expression: ".a" }), { a: 1 });
    order.push("cheap");
    expect(cheap).toMatchObject({ ok: true, value: 1 });
    expect(await spinning).toMatchObject({ ok: false, reason: "over-budget" });
    expect(order).toEqual(["cheap", "spin"]);
  }, 30_000);

  it("forgets a suspect filter once a run of it completes within its budget", async () => {
    // Slow only on a large input: suspect after two overruns there, cleared by a run on a small one.
    const sorting = await compiled({ language: "jq", expression: "[range(.n)] | length" });
    const huge = { n: 1e9 };
    await applyFilter(sorting, huge);
    await applyFilter(sorting, huge);
    expect(isSuspect(sorting)).toBe(true);
    expect(await applyFilter(sorting, { n: 3 })).toMatchObject({ ok: true, value: 3 });
    expect(isSuspect(sorting)).toBe(false);
  }, 30_000);

  it("refuses suspect runs past the lane's queue at once rather than queueing them all", async () => {
    const spin = await compiled({ language: "jq", expression: "def g: g; g" });
    await applyFilter(spin, { a: 1 });
    await applyFilter(spin, { a: 1 });
    const outcomes = await Promise.all(Array.from({ length: 24 }, () => applyFilter(spin, { a: 1 })));
    const busy = outcomes.filter((o) => !o.ok && o.message.includes("sandbox is busy"));
    expect(busy.length).toBeGreaterThan(0);
    expect(outcomes.every((o) => !o.ok && o.reason === "over-budget")).toBe(true);
  }, 60_000);

  it("sends the run queued behind a memory-aborted one to a fresh thread, where it answers", async () => {
    const sandbox = new FilterSandbox();
    const growing = await compiled({ language: "jq", expression: 'reduce range(40) as $i ("x"; . + .)' });
    const cheap = await compiled({ language: "jq", expression: ".a" });
    // Both queued at once: the cheap run waits for the growing one, which jq's memory cap aborts.
    const [aborted, after] = await Promise.all([
      applyFilter(growing, { a: 1 }, { sandbox, budget: { deadlineMs: 10_000 } }),
      applyFilter(cheap, { a: 1 }, { sandbox, budget: { deadlineMs: 10_000 } }),
    ]);
    await sandbox.close();
    expect(aborted).toMatchObject({ ok: false, reason: "over-budget" });
    expect(after).toMatchObject({ ok: true, value: 1 });
    expect(sandbox.terminations).toBe(1);
  }, 30_000);

  it("counts tokens whole up to 64 KiB and estimates longer texts from counted slices", () => {
    const short = JSON.stringify(listOf(100));
    expect(short.length).toBeLessThan(EXACT_COUNT_MAX_CHARS);
    expect(boundedTokenCount(short)).toEqual({ tokens: countTokens(short), exact: true });
    const long = JSON.stringify(listOf(4000));
    const estimate = boundedTokenCount(long);
    expect(estimate.exact).toBe(false);
    const exact = countTokens(long);
    expect(Math.abs(estimate.tokens - exact) / exact).toBeLessThan(0.05);
  });
});
