import fc from "fast-check";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { inlineParams, quotedLiteral } from "../src/sql/inline-params.js";

// Statements that join others in one simple query carry their parameters as quoted literals: the text
// must mean exactly what the parameters meant (checked end to end by the storage tests; here the edges).

describe("inlineParams", () => {
  it("quotes every value as an untyped literal, nulls as null", () => {
    expect(inlineParams("select $1, $2, $3, $4", ["a", 7, true, null])).toBe("select 'a', '7', 'true', null");
  });

  it("doubles quotes, and writes backslashes in an E'' literal", () => {
    expect(inlineParams("select $1", ["it's"])).toBe("select 'it''s'");
    // pg's escapeLiteral puts a space before E, harmless in SQL.
    expect(inlineParams("select $1", ["a\\b"])).toBe("select  E'a\\\\b'");
  });

  it("writes arrays as array literals, as pg does for a parameter", () => {
    expect(inlineParams("select $1::text[]", [["a", "d,e", null, "it's"]])).toBe(
      `select '{"a","d,e",NULL,"it''s"}'::text[]`,
    );
    expect(inlineParams("select $1::text[]", [['b"c']])).toBe(String.raw`select  E'{"b\\"c"}'::text[]`);
    expect(inlineParams("select $1::int[]", [[1, 2]])).toBe(`select '{"1","2"}'::int[]`);
  });

  it("replaces $10 as itself, not as $1 followed by 0", () => {
    const params = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    expect(inlineParams("select $1, $10", params)).toBe("select 'v1', 'v10'");
  });

  it("leaves a $n inside a quoted literal or identifier alone", () => {
    expect(inlineParams(`select '$1', "$1", $1`, ["x"])).toBe(`select '$1', "$1", 'x'`);
  });

  it("gives up (the statement goes alone, with parameters) on a NUL, binary data or a missing parameter", () => {
    expect(inlineParams("select $1", ["a\u0000b"])).toBeUndefined();
    expect(inlineParams("select $1", [Buffer.from("ab")])).toBeUndefined();
    expect(inlineParams("select $1, $2", ["a"])).toBeUndefined();
  });

  it("quotes any text exactly as pg's escapeLiteral does", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(quotedLiteral(text)).toBe(pg.escapeLiteral(text));
      }),
      { numRuns: 2000 },
    );
    for (const text of ["", "'", "\\", "''\\'", "a'b\\c", "\u{1F600}'"])
      expect(quotedLiteral(text)).toBe(pg.escapeLiteral(text));
  });
});
