import { describe, expect, it } from "vitest";
import { jsonSchemaProblem } from "../src/validation/json-schema.js";

// Issue 24: a schema that shares sub-objects (as an in-process OpenAPI expansion makes them) stands for a text
// far larger than its objects; the check must refuse it without writing it out.

describe("jsonSchemaProblem on a schema sharing its sub-schemas", () => {
  it("refuses a chain of ten-way shared objects standing for 10^9 leaves, without expanding it", () => {
    let schema: Record<string, unknown> = { type: "string", description: "a leaf" };
    for (let level = 0; level < 9; level++)
      schema = {
        type: "object",
        properties: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, schema])),
      };
    expect(jsonSchemaProblem(schema)).toBe("must be at most 64 KiB");
  });

  it("still checks a small schema, and answers the same verdict from its cache", () => {
    const bad = { type: "object", properties: { a: { type: "string", pattern: "(a" } } };
    const first = jsonSchemaProblem(bad);
    expect(first).toMatch(/not a valid/);
    expect(jsonSchemaProblem(structuredClone(bad))).toBe(first);
    expect(jsonSchemaProblem({ type: "object", properties: { a: { type: "string" } } })).toBeUndefined();
  });
});
