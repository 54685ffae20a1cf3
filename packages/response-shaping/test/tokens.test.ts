import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countTokens, measureTokens } from "../src/index.js";

describe("countTokens", () => {
  it("counts with o200k_base", () => {
    expect(countTokens("hello world")).toBe(2);
    expect(countTokens("")).toBe(0);
  });
});

describe("measureTokens", () => {
  it("never says a text fits when it does not, and an exact count is the count", () => {
    fc.assert(
      fc.property(
        fc.json({ maxDepth: 3 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 60 }),
        (json, limit, copies) => {
          const text = Array.from({ length: copies }, () => json).join(",");
          const measure = measureTokens(text, limit);
          const tokens = countTokens(text);
          if (measure.within) expect(tokens).toBeLessThanOrEqual(limit);
          if (measure.exact) expect(measure.tokens).toBe(tokens);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("decides a text of at most `limit` bytes fits without counting it all", () => {
    const text = JSON.stringify({ words: "lorem ipsum dolor ".repeat(500) });
    expect(measureTokens(text, text.length)).toMatchObject({ within: true, exact: false });
  });

  it("proves a long text over the limit and estimates its size", () => {
    const text = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `item ${i}` })));
    const measure = measureTokens(text, 1000);
    expect(measure.within).toBe(false);
    const tokens = countTokens(text);
    expect(measure.tokens).toBeGreaterThan(tokens * 0.7);
    expect(measure.tokens).toBeLessThan(tokens * 1.3);
  });
});
