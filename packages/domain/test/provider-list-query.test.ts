import { Effect, Either } from "effect";
import { describe, expect, it } from "vitest";
import { decodeProviderListQuery, type RawQuery } from "../src/wire/provider-list-query.js";

const decode = (query: RawQuery) => Effect.runSync(Effect.either(decodeProviderListQuery(query)));
const problems = (query: RawQuery) => {
  const result = decode(query);
  if (Either.isRight(result)) throw new Error("expected a problem");
  return result.left.errors;
};

describe("decodeProviderListQuery (ProviderListParameters)", () => {
  it("turns the strings of a query into the typed query", () => {
    expect(
      decode({
        limit: "7",
        token: "",
        nameContains: "git",
        baseURLContains: "api",
        apiType: "REST",
        visibility: "PUBLIC",
      }),
    ).toEqual(
      Either.right({
        limit: 7,
        token: "",
        nameContains: "git",
        baseURLContains: "api",
        apiType: "REST",
        visibility: "PUBLIC",
      }),
    );
    expect(decode({})).toEqual(Either.right({}));
    expect(decode({ limit: undefined })).toEqual(Either.right({}));
    expect(decode({ limit: "5000" })).toEqual(Either.right({ limit: 5000 }));
  });

  it.each([
    ["abc", "must be a whole number"],
    ["1.5", "must be a whole number"],
    ["1e3", "must be a whole number"],
    ["", "must be a whole number"],
    ["0", "must be at least 1"],
    ["-3", "must be at least 1"],
  ])("limit=%s: %s", (limit, message) => {
    expect(problems({ limit })).toEqual([{ path: "limit", message }]);
  });

  it("reports every bad, repeated or unknown parameter at once", () => {
    expect(problems({ limit: ["5", "6"], apiType: "SOAP", visibility: "public", token: "z", sort: "name" })).toEqual(
      expect.arrayContaining([
        { path: "limit", message: "must be given once" },
        { path: "apiType", message: "must be REST" },
        { path: "visibility", message: "must be INTERNAL or PUBLIC" },
        { path: "token", message: "is not a nextToken of this listing" },
        { path: "sort", message: "unknown query parameter" },
      ]),
    );
  });

  it("refuses text that cannot be stored, without repeating it", () => {
    expect(problems({ nameContains: "a\u0000b" })).toEqual([
      { path: "nameContains", message: "must not contain the NUL character (U+0000)" },
    ]);
  });
});
