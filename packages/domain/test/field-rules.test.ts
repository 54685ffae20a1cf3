import { JSONSchema } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProviderCreate } from "../src/provider/provider-schema.js";
import { SERVER_OUTPUT_FIELDS, ServerCreate } from "../src/server/server-schema.js";
import { SERVER_TOKEN_OUTPUT_FIELDS, ServerTokenCreate } from "../src/server-token/server-token-schema.js";
import { decode, expectProblems, expectRight, problemPaths } from "./support/decode.js";
import { alnum, lower, prompt, provider, resource, tool } from "./support/field-decoders.js";

describe("tool name", () => {
  it("accepts generated camelCase names of 1–20 characters", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...lower),
        fc.string({ unit: fc.constantFrom(...alnum), maxLength: 19 }),
        (first, rest) => {
          const value = expectRight(tool({ name: first + rest }));
          expect(value.name).toBe(first + rest);
        },
      ),
    );
  });

  it("refuses a name starting with an upper-case letter", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
        fc.string({ unit: fc.constantFrom(...alnum), maxLength: 19 }),
        (first, rest) => {
          expect(problemPaths(tool({ name: first + rest }))).toEqual(["tool.name"]);
        },
      ),
    );
  });

  it("refuses names longer than 20 characters", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...lower),
        fc.string({ unit: fc.constantFrom(...alnum), minLength: 20, maxLength: 60 }),
        (first, rest) => {
          expect(problemPaths(tool({ name: first + rest }))).toEqual(["tool.name"]);
        },
      ),
    );
    expect(problemPaths(tool({ name: `a${"b".repeat(20)}` }))).toEqual(["tool.name"]);
    expect(expectRight(tool({ name: `a${"b".repeat(19)}` })).name).toHaveLength(20);
  });

  it("refuses names containing a symbol", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...lower),
        fc.string({ unit: fc.constantFrom(...alnum), maxLength: 9 }),
        fc.constantFrom(..."_-. /$!{}@:é"),
        fc.string({ unit: fc.constantFrom(...alnum), maxLength: 9 }),
        (first, before, symbol, after) => {
          expect(problemPaths(tool({ name: first + before + symbol + after }))).toEqual(["tool.name"]);
        },
      ),
    );
  });

  it("refuses the empty name and names starting with a digit", () => {
    expect(problemPaths(tool({ name: "" }))).toEqual(["tool.name"]);
    expect(problemPaths(tool({ name: "1abc" }))).toEqual(["tool.name"]);
  });
});

describe("tool title", () => {
  it("is at most 64 characters", () => {
    expect(expectRight(tool({ title: "t".repeat(64) })).title).toHaveLength(64);
    expect(problemPaths(tool({ title: "t".repeat(65) }))).toEqual(["tool.title"]);
  });
});

describe("control characters (issue 10)", () => {
  const CONTROLS = ["\r\n", "\n", "\r", "\t", "\u0000", "\u001b[31m", "\u007f", "\u0085", "\u009b"];

  it("are refused inside every name, and in tool titles", () => {
    for (const c of CONTROLS) {
      const name = `a${c}b`;
      expect(problemPaths(provider({ name })), JSON.stringify(name)).toEqual(["provider.name"]);
      expect(problemPaths(prompt({ name })), JSON.stringify(name)).toEqual(["prompt.name"]);
      expect(problemPaths(resource({ name })), JSON.stringify(name)).toEqual(["resource.name"]);
      expect(
        problemPaths(decode("server", ServerCreate, SERVER_OUTPUT_FIELDS, { server: { name } })),
        JSON.stringify(name),
      ).toEqual(["server.name"]);
      expect(problemPaths(decode("token", ServerTokenCreate, SERVER_TOKEN_OUTPUT_FIELDS, { token: { name } }))).toEqual(
        ["token.name"],
      );
      expect(problemPaths(tool({ title: name })), JSON.stringify(name)).toEqual(["tool.title"]);
    }
    expect(expectProblems(provider({ name: "a\r\nb" }))).toEqual([
      { path: "provider.name", message: "must not contain control characters (such as CR, LF or TAB)" },
    ]);
  });

  it("around a name are trimmed away like any white space; other Unicode stays welcome", () => {
    expect(expectRight(provider({ name: "\r\n GitHub \t" })).name).toBe("GitHub");
    expect(expectRight(provider({ name: "Café ☕ 東京 — ok" })).name).toBe("Café ☕ 東京 — ok");
    expect(expectRight(tool({ title: "Get a repo — ☕" })).title).toBe("Get a repo — ☕");
  });

  it("are refused by the names' JSON Schema pattern too", () => {
    // The pattern the document publishes for `name`, wherever effect put it.
    const found = JSON.stringify(JSONSchema.make(ProviderCreate)).match(/"name":\{[^{}]*"pattern":("(?:[^"\\]|\\.)*")/);
    const pattern = new RegExp(JSON.parse(found![1]!) as string, "u");
    expect(pattern.test("a\r\nb")).toBe(false);
    expect(pattern.test(" \n GitHub \t")).toBe(true);
    expect(pattern.test("Café")).toBe(true);
  });
});

describe("names", () => {
  it("are trimmed", () => {
    expect(expectRight(provider({ name: "  GitHub \t" })).name).toBe("GitHub");
    expect(
      expectRight(decode("server", ServerCreate, SERVER_OUTPUT_FIELDS, { server: { name: "\n my server  " } })).name,
    ).toBe("my server");
  });

  it("are 1–100 characters after trimming", () => {
    expect(expectRight(provider({ name: "x".repeat(100) })).name).toHaveLength(100);
    expect(expectRight(provider({ name: ` ${"x".repeat(100)}  ` })).name).toHaveLength(100);
    expect(problemPaths(provider({ name: "x".repeat(101) }))).toEqual(["provider.name"]);
    expect(problemPaths(provider({ name: "" }))).toEqual(["provider.name"]);
    expect(problemPaths(provider({ name: "   " }))).toEqual(["provider.name"]);
  });

  it("apply to every named record", () => {
    const long = "n".repeat(101);
    expect(problemPaths(prompt({ name: long }))).toEqual(["prompt.name"]);
    expect(problemPaths(resource({ name: " " }))).toEqual(["resource.name"]);
    expect(
      problemPaths(decode("token", ServerTokenCreate, SERVER_TOKEN_OUTPUT_FIELDS, { token: { name: long } })),
    ).toEqual(["token.name"]);
    expect(problemPaths(decode("server", ServerCreate, SERVER_OUTPUT_FIELDS, { server: { name: "" } }))).toEqual([
      "server.name",
    ]);
  });

  it("must be strings", () => {
    expect(problemPaths(provider({ name: 42 }))).toEqual(["provider.name"]);
  });
});

describe("descriptions and instructions", () => {
  it("are at most 10,000 characters", () => {
    const ok = "d".repeat(10_000);
    const tooLong = "d".repeat(10_001);
    expect(expectRight(provider({ description: ok })).description).toHaveLength(10_000);
    expect(problemPaths(provider({ description: tooLong }))).toEqual(["provider.description"]);
    expect(problemPaths(tool({ description: tooLong }))).toEqual(["tool.description"]);
    expect(problemPaths(prompt({ description: tooLong }))).toEqual(["prompt.description"]);
    expect(problemPaths(resource({ description: tooLong }))).toEqual(["resource.description"]);
    expect(
      problemPaths(
        decode("server", ServerCreate, SERVER_OUTPUT_FIELDS, {
          server: { name: "s", description: tooLong, instructions: tooLong },
        }),
      ),
    ).toEqual(expect.arrayContaining(["server.description", "server.instructions"]));
    expect(
      expectRight(decode("server", ServerCreate, SERVER_OUTPUT_FIELDS, { server: { name: "s", instructions: ok } }))
        .instructions,
    ).toHaveLength(10_000);
  });
});
