import { describe, expect, it } from "vitest";
import { inlineParams } from "../src/sql/inline-params.js";

// A `$n` inside a literal, a dollar-quoted body or a comment is text, not a placeholder; a text this cannot
// read for sure is not inlined at all (the statement is then sent on its own, with real parameters).

describe("inlineParams reads SQL's lexical pieces", () => {
  it("leaves $n alone inside an escape string, including after an escaped quote", () => {
    expect(inlineParams(String.raw`select E'it\'s $1', $1`, ["x"])).toBe(String.raw`select E'it\'s $1', 'x'`);
    expect(inlineParams(String.raw`select e'a\\', $1`, ["x"])).toBe(String.raw`select e'a\\', 'x'`);
  });

  it("leaves $n alone inside dollar-quoted bodies, tagged or not", () => {
    expect(inlineParams("select $$ $1 $$, $1", ["x"])).toBe("select $$ $1 $$, 'x'");
    expect(inlineParams("select $f$ it's $1 $f$, $2", ["x", "y"])).toBe("select $f$ it's $1 $f$, 'y'");
  });

  it("leaves $n alone inside line and block comments", () => {
    expect(inlineParams("select $1 -- not $2\n, $2", ["x", "y"])).toBe("select 'x' -- not $2\n, 'y'");
    expect(inlineParams("select /* $2 it's */ $1", ["x", "y"])).toBe("select /* $2 it's */ 'x'");
  });

  it("refuses a text it cannot read for sure: an open quote, dollar quote or comment, a nested comment", () => {
    expect(inlineParams("select 'open $1", ["x"])).toBeUndefined();
    expect(inlineParams("select $$ open $1", ["x"])).toBeUndefined();
    expect(inlineParams("select /* open $1", ["x"])).toBeUndefined();
    expect(inlineParams("select /* a /* b */ $1 */ $1", ["x"])).toBeUndefined();
  });

  it("reads a word ending in e before a quote as a word, not as an escape string", () => {
    expect(inlineParams(String.raw`select 1 where 'a' like'\' and $1 = 'x'`, ["x"])).toBe(
      String.raw`select 1 where 'a' like'\' and 'x' = 'x'`,
    );
  });
});
