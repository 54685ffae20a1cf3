import { describe, expect, it } from "vitest";
import { FORBIDDEN_HEADERS } from "../src/validation/http-header.js";
import { expectProblems, expectRight, problemPaths } from "./support/decode.js";
import { tool, toolPatch } from "./support/field-decoders.js";

describe("tool method", () => {
  it("is normalised to upper case", () => {
    for (const [input, output] of [
      ["get", "GET"],
      ["Post", "POST"],
      ["pUt", "PUT"],
      ["patch", "PATCH"],
      ["delete", "DELETE"],
      ["head", "HEAD"],
      ["options", "OPTIONS"],
      ["GET", "GET"],
    ] as const) {
      expect(expectRight(tool({ method: input })).method).toBe(output);
    }
  });

  it("is one of GET POST PUT PATCH DELETE HEAD OPTIONS", () => {
    for (const method of ["TRACE", "CONNECT", "FETCH", "", " GET", "get ", 1])
      expect(problemPaths(tool({ method }))).toEqual(["tool.method"]);
  });

  it("is normalised on patch too", () => {
    expect(expectRight(toolPatch({ method: "delete" })).method).toBe("DELETE");
  });
});

describe("tool JSON schemas", () => {
  it("accept {} as none", () => {
    const value = expectRight(tool({ pathArgsJSONSchema: {}, queryArgsJSONSchema: {}, reqBodyJSONSchema: {} }));
    expect(value.pathArgsJSONSchema).toEqual({});
  });

  it("accept valid schemas", () => {
    const pathArgs = {
      type: "object",
      properties: { owner: { type: "string" } },
      required: ["owner"],
    };
    const value = expectRight(
      tool({
        pathArgsJSONSchema: pathArgs,
        queryArgsJSONSchema: { type: "object", properties: { page: { type: "integer", minimum: 1 } } },
        reqBodyJSONSchema: { type: "array", items: { type: "string" } },
      }),
    );
    expect(value.pathArgsJSONSchema).toEqual(pathArgs);
    expect(value.reqBodyJSONSchema).toEqual({ type: "array", items: { type: "string" } });
  });

  it("refuse invalid JSON Schemas", () => {
    for (const field of ["pathArgsJSONSchema", "queryArgsJSONSchema", "reqBodyJSONSchema"]) {
      const problems = expectProblems(tool({ [field]: { type: 12 } }));
      expect(problems.map((p) => p.path)).toEqual([`tool.${field}`]);
      expect(problems[0]?.message).toMatch(/JSON Schema/);
    }
    expect(problemPaths(tool({ reqBodyJSONSchema: { type: "object", required: "owner" } }))).toEqual([
      "tool.reqBodyJSONSchema",
    ]);
    expect(problemPaths(tool({ reqBodyJSONSchema: { minLength: -1 } }))).toEqual(["tool.reqBodyJSONSchema"]);
    expect(problemPaths(tool({ reqBodyJSONSchema: { $ref: "#/$defs/missing" } }))).toEqual(["tool.reqBodyJSONSchema"]);
  });

  it("refuse non-object schema values", () => {
    for (const value of ["schema", 1, [], null, true])
      expect(problemPaths(tool({ reqBodyJSONSchema: value }))).toEqual(["tool.reqBodyJSONSchema"]);
  });

  it("require type object for path and query arguments", () => {
    expect(problemPaths(tool({ pathArgsJSONSchema: { type: "string" } }))).toEqual(["tool.pathArgsJSONSchema"]);
    expect(problemPaths(tool({ queryArgsJSONSchema: { type: "array" } }))).toEqual(["tool.queryArgsJSONSchema"]);
    expect(problemPaths(tool({ queryArgsJSONSchema: { properties: { a: { type: "string" } } } }))).toEqual([
      "tool.queryArgsJSONSchema",
    ]);
    // The request body may be any schema.
    expect(expectRight(tool({ reqBodyJSONSchema: { type: "string" } })).reqBodyJSONSchema).toEqual({
      type: "string",
    });
  });

  it("are at most 64 KiB", () => {
    const schemaOfSize = (approxBytes: number) => ({
      type: "object",
      description: "x".repeat(approxBytes),
    });
    expect(expectRight(tool({ reqBodyJSONSchema: schemaOfSize(60 * 1024) })).reqBodyJSONSchema).toBeDefined();
    const problems = expectProblems(tool({ reqBodyJSONSchema: schemaOfSize(64 * 1024) }));
    expect(problems).toEqual([{ path: "tool.reqBodyJSONSchema", message: "must be at most 64 KiB" }]);
    expect(problemPaths(tool({ pathArgsJSONSchema: schemaOfSize(65 * 1024) }))).toEqual(["tool.pathArgsJSONSchema"]);
  });

  it("may be a draft-07 schema when it says so", () => {
    const schema = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", additionalItems: false };
    expect(expectRight(tool({ queryArgsJSONSchema: schema })).queryArgsJSONSchema).toEqual(schema);
  });

  it("can be validated repeatedly (the validator keeps no stale state)", () => {
    const schema = { $id: "https://example.com/s", type: "object" };
    expect(expectRight(tool({ pathArgsJSONSchema: schema })).pathArgsJSONSchema).toEqual(schema);
    expect(expectRight(tool({ pathArgsJSONSchema: schema })).pathArgsJSONSchema).toEqual(schema);
  });
});

describe("tool headers", () => {
  it("accept HTTP token keys and values without CR/LF", () => {
    const headers = [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference, sent literally.
      { key: "X-Api-Key", value: "${API_KEY}" },
      { key: "Accept", value: "application/vnd.github+json" },
      { key: "x!#$%&'*+-.^_`|~9", value: "" },
    ];
    expect(expectRight(tool({ headers })).headers).toEqual(headers);
  });

  it("refuse keys that are not HTTP tokens", () => {
    for (const key of ["", "X Api", "X:Y", "Ünicode", "a(b)", 'a"b', "a/b", "a\nb"])
      expect(
        problemPaths(
          tool({
            headers: [
              { key: "X-Ok", value: "1" },
              { key, value: "v" },
            ],
          }),
        ),
      ).toEqual(["tool.headers[1].key"]);
  });

  it("refuse values with CR or LF", () => {
    for (const value of ["a\r\nSet-Cookie: x", "a\nb", "a\rb"])
      expect(problemPaths(tool({ headers: [{ key: "X-A", value }] }))).toEqual(["tool.headers[0].value"]);
  });

  it("refuse hop-by-hop and framing headers, case-insensitively", () => {
    for (const key of ["Host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Upgrade", "TE"]) {
      for (const variant of [key, key.toLowerCase(), key.toUpperCase()]) {
        const problems = expectProblems(tool({ headers: [{ key: variant, value: "x" }] }));
        expect(problems.map((p) => p.path)).toEqual(["tool.headers[0].key"]);
        expect(problems[0]?.message).toContain("hop-by-hop");
      }
    }
    for (const key of FORBIDDEN_HEADERS)
      expect(problemPaths(tool({ headers: [{ key: key.toUpperCase(), value: "x" }] }))).toEqual([
        "tool.headers[0].key",
      ]);
  });

  it("report every bad header at once", () => {
    expect(
      problemPaths(
        tool({
          headers: [
            { key: "Host", value: "x" },
            { key: "X-Fine", value: "ok" },
            { key: "X-A", value: "a\nb" },
          ],
        }),
      ),
    ).toEqual(["tool.headers[0].key", "tool.headers[2].value"]);
  });
});
