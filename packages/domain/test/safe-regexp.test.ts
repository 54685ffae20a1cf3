import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import {
  compileSafeRegExp,
  MAX_REGEXP_PROGRAM,
  REGEXP_WORK_BUDGET,
  RegExpBudgetExceeded,
  SafeRegExpRefused,
  safeRegExpEngine,
  safeRegExpProblem,
  withRegExpBudget,
} from "../src/public/mcp.js";
import { jsonSchemaProblem } from "../src/validation/json-schema.js";

// Tenant-written regexes (issue 10, F1): linear-time matching, refused constructs named at write time, and a
// hard bound on the work of every test. Timings are not asserted here (the service test watches /healthz);
// the catastrophic inputs below take V8's backtracking engine seconds to hours.

describe("safe regexp", () => {
  it("matches the catastrophic-backtracking classics without backtracking", () => {
    // Under V8, each of these takes seconds (31 characters) to hours (40+).
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["^(a+)+$", `${"a".repeat(40)}!`],
      ["^(a|a)*$", `${"a".repeat(40)}!`],
      ["^(a|aa)+$", `${"a".repeat(60)}!`],
      ["^(\\w+\\s?)*$", `${"word ".repeat(30)}!`],
      ["^([a-z0-9]+)*@x$", `${"a".repeat(50_000)}!`],
    ];
    for (const [pattern, input] of cases) expect(compileSafeRegExp(pattern).test(input), pattern).toBe(false);
    expect(compileSafeRegExp("^(a+)+$").test("a".repeat(40))).toBe(true);
  });

  it("keeps ECMAScript meaning for the common syntax", () => {
    const yes: ReadonlyArray<readonly [string, string]> = [
      ["^[a-z0-9-]+$", "abc-123"],
      ["^\\d{3}-\\d{4}$", "555-1234"],
      ["^\\p{Lu}\\p{Ll}+$", "Émile"],
      ["^\\u{1F600}$", "😀"],
      ["^.$", "😀"],
      ["^(?<year>\\d{4})$", "2030"],
      ["\\bfoo\\b", "a foo b"],
      ["^[^]$", "\n"],
      ["", "anything"],
    ];
    for (const [pattern, input] of yes) expect(compileSafeRegExp(pattern).test(input), pattern).toBe(true);
    expect(compileSafeRegExp("^[a-z]+$").test("ABC")).toBe(false);
    expect(compileSafeRegExp("^[a-z]+$", "ui").test("ABC")).toBe(true);
    expect(compileSafeRegExp("^b$").test("a\nb")).toBe(false);
    expect(compileSafeRegExp("^b$", "um").test("a\nb")).toBe(true);
  });

  it.each([
    ["(a)\\1", "backreference"],
    ["(?<n>a)\\k<n>", "backreference"],
    ["a(?=b)", "lookahead or lookbehind"],
    ["a(?!b)", "lookahead or lookbehind"],
    ["(?<=a)b", "lookahead or lookbehind"],
    ["(?<!a)b", "lookahead or lookbehind"],
    ["(unclosed", "not a valid regular expression"],
    ["a{2,1}", "not a valid regular expression"],
    ["(?:[a-z]{1,10}){1,100}", "too complex"],
    ["(?:a{1,1000}){1,1000}", "RE2"],
  ])("refuses %s (%s)", (pattern, why) => {
    expect(safeRegExpProblem(pattern)).toContain(why);
    expect(() => compileSafeRegExp(pattern)).toThrow(SafeRegExpRefused);
  });

  it("accepts what only looks like lookaround or a backreference", () => {
    for (const pattern of ["\\(?=", "[(?=]", "[\\1]".replace("\\1", "1"), "\\\\1", "\\(?!x\\)"])
      expect(safeRegExpProblem(pattern), pattern).toBeUndefined();
  });

  it("bounds the work of one test and of a budget scope", () => {
    const simple = compileSafeRegExp("^[a-z]+$");
    expect(simple.test("a".repeat(100_000))).toBe(true);
    expect(() => simple.test("a".repeat(REGEXP_WORK_BUDGET))).toThrow(RegExpBudgetExceeded);
    const large = compileSafeRegExp("^(?:[a-z]{1,9}){1,50}$");
    expect(large.programSize).toBeLessThanOrEqual(MAX_REGEXP_PROGRAM);
    expect(() => large.test("a".repeat(10_000))).toThrow(RegExpBudgetExceeded);
    // One scope shares its budget: many short strings add up.
    const perString = (simple.programSize + 32) * 1_000;
    const fits = Math.floor(REGEXP_WORK_BUDGET / perString);
    const strings = Array.from({ length: fits + 1 }, () => "a".repeat(1_000));
    expect(() => withRegExpBudget(REGEXP_WORK_BUDGET, () => strings.every((s) => simple.test(s)))).toThrow(
      RegExpBudgetExceeded,
    );
    expect(withRegExpBudget(REGEXP_WORK_BUDGET, () => strings.slice(1).every((s) => simple.test(s)))).toBe(true);
    // Nested scopes spend from the outer one.
    withRegExpBudget(perString * 2, () => {
      withRegExpBudget(perString * 10, () => simple.test("a".repeat(1_000)));
      simple.test("a".repeat(1_000));
      expect(() => simple.test("a".repeat(1_000))).toThrow(RegExpBudgetExceeded);
    });
  });
});

describe("safe regexp in ajv", () => {
  it("keeps each pattern of a schema apart (ajv keys compiled patterns by their toString)", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, code: { regExp: safeRegExpEngine } });
    const validate = ajv.compile({
      type: "object",
      properties: { a: { pattern: "^a+$" }, b: { pattern: "^b+$" } },
      patternProperties: { "^x-": { pattern: "^x+$" } },
    });
    expect(validate({ a: "aaa", b: "bbb", "x-1": "xx" })).toBe(true);
    expect(validate({ a: "b" })).toBe(false);
    expect(validate({ b: "a" })).toBe(false);
    expect(validate({ "x-1": "a" })).toBe(false);
    expect(compileSafeRegExp("^a$", "ui").toString()).toBe("/^a$/ui");
  });
});

describe("JSON Schema regexes at write time", () => {
  const problem = (schema: Record<string, unknown>) => jsonSchemaProblem(schema);

  it("accepts linear-time-safe patterns, including the ReDoS classic that RE2 runs safely", () => {
    expect(problem({ type: "object", properties: { a: { type: "string", pattern: "^(a+)+$" } } })).toBeUndefined();
    expect(problem({ type: "object", patternProperties: { "^x-[a-z]+$": { type: "string" } } })).toBeUndefined();
  });

  it("names the path of a pattern the engine cannot run", () => {
    expect(problem({ type: "object", properties: { a: { type: "string", pattern: "^(a)\\1$" } } })).toMatch(
      /properties\.a\.pattern: uses a backreference/,
    );
    expect(problem({ type: "object", properties: { list: { type: "array", items: { pattern: "(?=x)" } } } })).toMatch(
      /properties\.list\.items\.pattern: uses a lookahead/,
    );
    expect(problem({ type: "object", patternProperties: { "^(?!x)": {} } })).toMatch(
      /patternProperties\["\^\(\?!x\)"\]: uses a lookahead/,
    );
    expect(problem({ $defs: { a: { anyOf: [{}, { pattern: "(?:[a-z]{1,10}){1,100}" }] } } })).toMatch(
      /\$defs\.a\.anyOf\[1\]\.pattern: is too complex/,
    );
  });

  it("does not read data keywords as schemas", () => {
    expect(problem({ type: "object", default: { pattern: "(a)\\1" }, examples: [{ pattern: "(?=" }] })).toBeUndefined();
  });
});
