import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countTokens, estimateTokens, measureTokens } from "../src/index.js";

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

  it("estimates a fitting text's size near its count without the tokenizer", () => {
    const records = Array.from({ length: 200 }, (_, i) => ({
      id: `cus_${i.toString(36)}`,
      email: `user${i}@example.com`,
      created: 1700000000 + i,
      address: { city: "Berlin", line1: `${i} Main Street` },
    }));
    for (const text of [
      JSON.stringify({ id: 42, name: "widget", tags: ["a", "b"], price: 9.99 }),
      JSON.stringify(records),
      JSON.stringify(records.slice(0, 20), null, 2),
      "Größenänderungen der Datenbank müssen überprüft werden.",
      "数据库的大小更改必须在接受之前进行检查。",
    ]) {
      const measure = measureTokens(text, Buffer.byteLength(text));
      expect(measure).toMatchObject({
        within: true,
        exact: false,
        tokens: Math.min(Buffer.byteLength(text), estimateTokens(text)),
      });
      const ratio = estimateTokens(text) / countTokens(text);
      expect(ratio).toBeGreaterThan(0.6);
      expect(ratio).toBeLessThan(1.5);
    }
  });
});
