import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isId, newId, randomAlphanumeric } from "../src/ids/id.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

describe("newId", () => {
  it("always yields 11 letters or digits", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), (count) => {
        for (let i = 0; i < count; i++) expect(newId()).toMatch(/^[A-Za-z0-9]{11}$/);
      }),
      { numRuns: 200 },
    );
  });

  it("yields ids accepted by isId", () => {
    for (let i = 0; i < 1000; i++) expect(isId(newId())).toBe(true);
  });

  it("does not repeat itself over 10,000 draws", () => {
    const ids = new Set(Array.from({ length: 10_000 }, newId));
    expect(ids.size).toBe(10_000);
  });
});

describe("randomAlphanumeric", () => {
  it("has exactly the requested length and only alphanumeric characters", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), (n) => {
        const s = randomAlphanumeric(n);
        expect(s).toHaveLength(n);
        expect(s).toMatch(/^[A-Za-z0-9]*$/);
      }),
    );
  });

  it("is uniform over the 62 characters (chi-square)", () => {
    const N = 200_000;
    const counts = new Map<string, number>(Array.from(ALPHABET, (c) => [c, 0] as const));
    for (const c of randomAlphanumeric(N)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);

    const expected = N / 62;
    let chiSquare = 0;
    for (const observed of counts.values()) chiSquare += (observed - expected) ** 2 / expected;

    // Under uniformity the statistic follows χ² with 61 degrees of freedom: mean 61, standard deviation
    // √122 ≈ 11. P(χ²₆₁ > 150) ≈ 3e-9 (Wilson–Hilferty), so a correct generator essentially never trips it.
    // The classic mistake `byte % 62` without rejection maps 256 = 4·62 + 8 byte values onto 62 characters:
    // the first 8 characters get probability 5/256 instead of 1/62. Over 200k draws each of them is off by
    // ≈ 680 from the expected ≈ 3226 (≈ 143 each to χ²) and the other 54 by ≈ 101 (≈ 3 each), so the
    // biased generator scores χ² ≈ 1,300 — nearly ten times the bound.
    expect(chiSquare).toBeLessThan(150);
  });

  it("the chi-square bound would catch modulo bias", () => {
    // Same statistic over a deliberately biased generator (`byte % 62`, no rejection), fed with a uniform
    // byte sequence: proves the bound above is tight enough to matter.
    const N = 200_000;
    const counts = new Array<number>(62).fill(0);
    for (let i = 0; i < N; i++) {
      const index = (i % 256) % 62;
      counts[index] = (counts[index] ?? 0) + 1;
    }
    const expected = N / 62;
    const chiSquare = counts.reduce((acc, observed) => acc + (observed - expected) ** 2 / expected, 0);
    expect(chiSquare).toBeGreaterThan(150);
  });
});

describe("isId", () => {
  it("accepts exactly 11 alphanumeric characters", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 11, maxLength: 11 }), (s) => {
        expect(isId(s)).toBe(true);
      }),
    );
  });

  it("rejects other lengths", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 40 }).filter((s) => s.length !== 11),
        (s) => {
          expect(isId(s)).toBe(false);
        },
      ),
    );
  });

  it("rejects strings with a non-alphanumeric character", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 10, maxLength: 10 }),
        fc.string({ minLength: 1, maxLength: 1 }).filter((c) => !/[A-Za-z0-9]/.test(c)),
        fc.nat({ max: 10 }),
        (base, bad, at) => {
          expect(isId(base.slice(0, at) + bad + base.slice(at))).toBe(false);
        },
      ),
    );
  });

  it("rejects non-strings and known bad values", () => {
    for (const value of [
      undefined,
      null,
      12345678901,
      {},
      [],
      "Ab3dE5gH9j",
      "Ab3dE5gH9jKl",
      "Ab3dE5gH9j-",
      " Ab3dE5gH9j",
    ])
      expect(isId(value)).toBe(false);
    expect(isId("Ab3dE5gH9jK")).toBe(true);
  });
});
