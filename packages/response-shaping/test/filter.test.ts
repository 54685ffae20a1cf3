import { afterAll, describe, expect, it } from "vitest";
import { applyFilter, type CompiledFilter, compileFilter, FilterSandbox, type ResponseFilter } from "../src/index.js";

const sandbox = new FilterSandbox();
afterAll(() => sandbox.close());

const compiled = async (filter: ResponseFilter): Promise<CompiledFilter> => {
  const outcome = await compileFilter(filter, { sandbox });
  if (!outcome.ok) throw new Error(outcome.problem.message);
  return outcome.filter;
};

const answer = {
  data: [
    { id: "a1", email: "a@example.com", name: "Ann", address: { city: "Oslo" } },
    { id: "b2", email: "b@example.com", name: "Bob", address: { city: "Rome" } },
  ],
  has_more: true,
};

describe("compileFilter", () => {
  it.each([
    ["jmespath", "data[*].{id: id"],
    ["jmespath", "foo["],
    ["jq", ".data | map(.id"],
    ["jq", 'import "x" as x; .'],
    ["jmespath", "   "],
  ] as const)("refuses %s `%s` at tool.responseFilter.expression", async (language, expression) => {
    const outcome = await compileFilter({ language, expression }, { sandbox });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.problem.path).toBe("tool.responseFilter.expression");
      expect(outcome.problem.message).not.toBe("");
    }
  });

  it("names the language when it is not one it knows", async () => {
    const outcome = await compileFilter({ language: "xpath", expression: "/a" } as unknown as ResponseFilter, {
      sandbox,
    });
    expect(outcome).toMatchObject({ ok: false, problem: { path: "tool.responseFilter.language" } });
  });

  it("refuses jq whose constant parts exhaust the sandbox as it compiles", async () => {
    const outcome = await compileFilter({ language: "jq", expression: '"x" * 1e9' }, { sandbox });
    expect(outcome).toMatchObject({ ok: false, problem: { path: "tool.responseFilter.expression" } });
  });

  it("says the jq error, line and column included", async () => {
    const outcome = await compileFilter({ language: "jq", expression: ".a | map(" }, { sandbox });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.problem.message).toMatch(/syntax error/);
  });

  it("runs cheap JMESPath in the caller's thread and the rest in the sandbox", async () => {
    expect(
      (await compiled({ language: "jmespath", expression: "data[*].{id: id, city: address.city}" })).inProcess,
    ).toBe(true);
    expect((await compiled({ language: "jmespath", expression: "pad_left(name, `10`)" })).inProcess).toBe(false);
    expect((await compiled({ language: "jmespath", expression: "[@,@].[@,@].[@,@].[@,@].[@,@]" })).inProcess).toBe(
      false,
    );
    expect((await compiled({ language: "jq", expression: ".data" })).inProcess).toBe(false);
  });
});

describe("applyFilter", () => {
  it("applies JMESPath", async () => {
    const filter = await compiled({ language: "jmespath", expression: "data[*].{id: id, city: address.city}" });
    const outcome = await applyFilter(filter, answer, { sandbox });
    expect(outcome).toMatchObject({
      ok: true,
      value: [
        { id: "a1", city: "Oslo" },
        { id: "b2", city: "Rome" },
      ],
    });
  });

  it("applies JMESPath in the sandbox with the same result", async () => {
    const filter = await compiled({ language: "jmespath", expression: "data[*].pad_right(id, `4`, '.')" });
    expect(filter.inProcess).toBe(false);
    expect(await applyFilter(filter, answer, { sandbox })).toMatchObject({ ok: true, value: ["a1..", "b2.."] });
  });

  it("applies jq: one output is itself, several are an array, none is null", async () => {
    const one = await applyFilter(
      await compiled({ language: "jq", expression: ".data | map({id, city: .address.city})" }),
      answer,
      { sandbox },
    );
    expect(one).toMatchObject({
      ok: true,
      value: [
        { id: "a1", city: "Oslo" },
        { id: "b2", city: "Rome" },
      ],
    });
    const many = await applyFilter(await compiled({ language: "jq", expression: ".data[].id" }), answer, { sandbox });
    expect(many).toMatchObject({ ok: true, value: ["a1", "b2"] });
    const none = await applyFilter(await compiled({ language: "jq", expression: "empty" }), answer, { sandbox });
    expect(none).toMatchObject({ ok: true, value: null });
  });

  it("turns a failing expression into a failed outcome", async () => {
    const outcome = await applyFilter(await compiled({ language: "jq", expression: ".data + 1" }), answer, { sandbox });
    expect(outcome).toMatchObject({ ok: false, reason: "failed" });
  });

  it.each([
    ["jq", "def f: f; f", 100],
    ["jq", "[range(1e9)]", 100],
    ["jq", "[limit(100000000; repeat(.))]", 100],
    ["jmespath", Array.from({ length: 40 }, () => "[@,@]").join("."), 100],
  ] as const)(
    "stops the hostile %s filter `%s` as over-budget, the process answering meanwhile",
    async (language, expression, deadlineMs) => {
      const filter = await compiled({ language, expression });
      let ticks = 0;
      const ticker = setInterval(() => {
        ticks += 1;
      }, 1);
      const running = applyFilter(filter, answer, { sandbox, budget: { deadlineMs } });
      // An in-process filter completes while the hostile one is still running.
      const cheap = await applyFilter(await compiled({ language: "jmespath", expression: "has_more" }), answer, {
        sandbox,
      });
      expect(cheap).toMatchObject({ ok: true, value: true });
      const outcome = await running;
      clearInterval(ticker);
      expect(outcome).toMatchObject({ ok: false, reason: "over-budget" });
      expect(ticks).toBeGreaterThan(0);
      // The sandbox recovers for the next call.
      const after = await applyFilter(await compiled({ language: "jq", expression: ".has_more" }), answer, { sandbox });
      expect(after).toMatchObject({ ok: true, value: true });
    },
  );
});
