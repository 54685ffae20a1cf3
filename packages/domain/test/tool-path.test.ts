import { Either, Schema } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pathPlaceholders, ToolPath } from "../src/tool/tool-schema.js";

const decodePath = Schema.decodeUnknownEither(ToolPath);
const accepts = (path: string) => Either.isRight(decodePath(path));

describe("pathPlaceholders", () => {
  it("lists placeholders in order", () => {
    expect(pathPlaceholders("/repos/{owner}/{repo}/issues/{issue_number}")).toEqual(["owner", "repo", "issue_number"]);
  });

  it("finds none in a plain path", () => {
    expect(pathPlaceholders("/users")).toEqual([]);
    expect(pathPlaceholders("/")).toEqual([]);
  });

  it("finds placeholders inside a segment and repeated ones", () => {
    expect(pathPlaceholders("/files/{name}.{ext}")).toEqual(["name", "ext"]);
    expect(pathPlaceholders("/{a}/{a}")).toEqual(["a", "a"]);
  });

  it("returns the empty name of {}", () => {
    expect(pathPlaceholders("/x/{}")).toEqual([""]);
  });

  it("recovers generated placeholder names", () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/), { maxLength: 6 }), (names) => {
        const path = `/${names.map((n) => `seg/{${n}}`).join("/")}`;
        expect(pathPlaceholders(path)).toEqual(names);
        expect(accepts(path)).toBe(true);
      }),
    );
  });
});

describe("ToolPath", () => {
  it("accepts templates starting with /", () => {
    for (const path of ["/", "/users", "/repos/{owner}/{repo}", "/files/{name}.{ext}", "/a-b/c_d/~e", "/v1/{_id}"])
      expect(accepts(path)).toBe(true);
  });

  it("must start with /", () => {
    for (const path of ["", "users", "{owner}/x", "https://example.com/x", " /x"]) expect(accepts(path)).toBe(false);
  });

  it("must have balanced braces", () => {
    for (const path of ["/{owner", "/owner}", "/{{owner}}", "/{a}/{b", "/}{", "/{a{b}}"])
      expect(accepts(path)).toBe(false);
  });

  it("must not carry a query or fragment", () => {
    for (const path of ["/search?q=1", "/x#top", "/x/{id}?a", "/?"]) expect(accepts(path)).toBe(false);
  });

  it("refuses white space and control characters", () => {
    for (const path of ["/a b", "/a\tb", "/a\nb", "/a\u0000"]) expect(accepts(path)).toBe(false);
  });

  it("refuses placeholders that are not names", () => {
    for (const path of ["/x/{}", "/x/{1a}", "/x/{a-b}", "/x/{a.b}"]) expect(accepts(path)).toBe(false);
  });

  it("refuses paths over 2048 characters", () => {
    expect(accepts(`/${"a".repeat(2047)}`)).toBe(true);
    expect(accepts(`/${"a".repeat(2048)}`)).toBe(false);
  });

  it("refuses any path containing ? or #", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.constantFrom("?", "#"), fc.string({ maxLength: 20 }), (a, c, b) => {
        expect(accepts(`/${a}${c}${b}`)).toBe(false);
      }),
    );
  });
});
