import { JSONSchema } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PROMPT_OUTPUT_FIELDS, PromptCreate } from "../src/prompt/prompt-schema.js";
import { PROVIDER_OUTPUT_FIELDS, ProviderCreate, ProviderPatch } from "../src/provider/provider-schema.js";
import { RESOURCE_OUTPUT_FIELDS, ResourceCreate } from "../src/resource/resource-schema.js";
import { SERVER_OUTPUT_FIELDS, ServerCreate } from "../src/server/server-schema.js";
import { SERVER_TOKEN_OUTPUT_FIELDS, ServerTokenCreate } from "../src/server-token/server-token-schema.js";
import { TOOL_OUTPUT_FIELDS, ToolCreate, ToolPatch } from "../src/tool/tool-schema.js";
import { FORBIDDEN_HEADERS } from "../src/validation/http-header.js";
import { httpUrlProblem } from "../src/validation/http-url.js";
import { VARIABLE_OUTPUT_FIELDS, VariableCreate, VariablePatch } from "../src/variable/variable-schema.js";
import { decode, expectProblems, expectRight, problemPaths } from "./support/decode.js";

const BASE_TOOL = { name: "getRepo", method: "GET", path: "/repos/{owner}" };
const tool = (fields: Record<string, unknown>) =>
  decode("tool", ToolCreate, TOOL_OUTPUT_FIELDS, { tool: { ...BASE_TOOL, ...fields } });
const toolPatch = (fields: Record<string, unknown>) => decode("tool", ToolPatch, TOOL_OUTPUT_FIELDS, { tool: fields });

const BASE_PROVIDER = { name: "GitHub", baseURL: "https://api.github.com" };
const provider = (fields: Record<string, unknown>) =>
  decode("provider", ProviderCreate, PROVIDER_OUTPUT_FIELDS, { provider: { ...BASE_PROVIDER, ...fields } });

const variable = (fields: Record<string, unknown>) =>
  decode("variable", VariableCreate, VARIABLE_OUTPUT_FIELDS, {
    variable: { type: "ENV", name: "API_KEY", value: "v", ...fields },
  });

const prompt = (fields: Record<string, unknown>) =>
  decode("prompt", PromptCreate, PROMPT_OUTPUT_FIELDS, { prompt: { name: "greet", ...fields } });

const resource = (fields: Record<string, unknown>) =>
  decode("resource", ResourceCreate, RESOURCE_OUTPUT_FIELDS, {
    resource: { name: "readme", uri: "https://example.com/readme", ...fields },
  });

const lower = "abcdefghijklmnopqrstuvwxyz";
const alnum = `${lower}ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789`;

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

describe("URLs", () => {
  it("accept absolute http and https URLs", () => {
    for (const url of ["https://api.github.com", "http://localhost:8080/v1", "https://example.com/a?b=c#d"])
      expect(expectRight(provider({ baseURL: url })).baseURL).toBe(url);
  });

  it("refuse other schemes, relative URLs and credentials", () => {
    for (const url of [
      "ftp://example.com",
      "javascript:alert(1)",
      "file:///etc/passwd",
      "data:text/plain,hi",
      "/relative/path",
      "example.com",
      "",
      "https://user:pass@example.com",
      "https://user@example.com",
      `https://example.com/${"a".repeat(2048)}`,
    ]) {
      expect(problemPaths(provider({ baseURL: url }))).toEqual(["provider.baseURL"]);
      expect(httpUrlProblem(url)).toBeTypeOf("string");
    }
  });

  it('allow "" for optional URLs but not bad ones', () => {
    const value = expectRight(provider({ documentURL: "", iconURL: "" }));
    expect(value.documentURL).toBe("");
    expect(problemPaths(provider({ documentURL: "javascript:alert(1)", iconURL: "ftp://x/icon.png" }))).toEqual(
      expect.arrayContaining(["provider.documentURL", "provider.iconURL"]),
    );
    expect(
      problemPaths(provider({ oauth2Config: { authURL: "ftp://auth", tokenURL: "https://u:p@token.example" } })),
    ).toEqual(expect.arrayContaining(["provider.oauth2Config.authURL", "provider.oauth2Config.tokenURL"]));
  });

  it("apply to resource uri", () => {
    expect(problemPaths(resource({ uri: "javascript:alert(1)" }))).toEqual(["resource.uri"]);
    expect(problemPaths(resource({ uri: "relative" }))).toEqual(["resource.uri"]);
  });
});

describe("variables", () => {
  it("accept identifier names up to 128 characters", () => {
    for (const name of ["A", "_", "API_KEY", "a1_B2", `V${"x".repeat(127)}`])
      expect(expectRight(variable({ name })).name).toBe(name);
  });

  it("refuse names that are not identifiers or longer than 128", () => {
    for (const name of ["", "1ABC", "API-KEY", "API KEY", "ÄPI", "a.b", `V${"x".repeat(128)}`])
      expect(problemPaths(variable({ name }))).toEqual(["variable.name"]);
  });

  it("accept values up to 64 KiB of UTF-8", () => {
    expect(expectRight(variable({ value: "v".repeat(64 * 1024) })).value).toHaveLength(64 * 1024);
    expect(expectRight(variable({ value: "" })).value).toBe("");
  });

  it("refuse values over 64 KiB, counting UTF-8 bytes", () => {
    expect(problemPaths(variable({ value: "v".repeat(64 * 1024 + 1) }))).toEqual(["variable.value"]);
    // 22,000 × "€" is 22,000 characters but 66,000 bytes.
    expect(problemPaths(variable({ value: "€".repeat(22_000) }))).toEqual(["variable.value"]);
    expect(
      problemPaths(
        decode("variable", VariablePatch, VARIABLE_OUTPUT_FIELDS, { variable: { value: "€".repeat(22_000) } }),
      ),
    ).toEqual(["variable.value"]);
  });

  it("have type ENV or SECRET", () => {
    expect(expectRight(variable({ type: "SECRET" })).type).toBe("SECRET");
    for (const type of ["INVALID", "env", "", null])
      expect(problemPaths(variable({ type }))).toEqual(["variable.type"]);
  });

  it("patch only the value: name and type are unknown fields there", () => {
    expect(
      expectProblems(
        decode("variable", VariablePatch, VARIABLE_OUTPUT_FIELDS, { variable: { value: "x", name: "B", type: "ENV" } }),
      ),
    ).toEqual(
      expect.arrayContaining([
        { path: "variable.name", message: "unknown field" },
        { path: "variable.type", message: "unknown field" },
      ]),
    );
  });
});

describe("provider apiType and visibilityType", () => {
  it("accept the valid values", () => {
    const value = expectRight(provider({ apiType: "REST", visibilityType: "PUBLIC" }));
    expect(value).toMatchObject({ apiType: "REST", visibilityType: "PUBLIC" });
    expect(expectRight(provider({ visibilityType: "INTERNAL" })).visibilityType).toBe("INTERNAL");
  });

  it("refuse INVALID", () => {
    expect(problemPaths(provider({ apiType: "INVALID" }))).toEqual(["provider.apiType"]);
    expect(problemPaths(provider({ visibilityType: "INVALID" }))).toEqual(["provider.visibilityType"]);
    expect(
      problemPaths(decode("provider", ProviderPatch, PROVIDER_OUTPUT_FIELDS, { provider: { apiType: "INVALID" } })),
    ).toEqual(["provider.apiType"]);
  });

  it("refuse other values", () => {
    for (const apiType of ["GRAPHQL", "rest", "", 0])
      expect(problemPaths(provider({ apiType }))).toEqual(["provider.apiType"]);
    for (const visibilityType of ["PRIVATE", "public"])
      expect(problemPaths(provider({ visibilityType }))).toEqual(["provider.visibilityType"]);
  });

  it("accept oauth2Config null (removal) and an object", () => {
    expect(expectRight(provider({ oauth2Config: null })).oauth2Config).toBeNull();
    expect(
      expectRight(provider({ oauth2Config: { clientID: "id", clientSecret: "s", authURL: "", tokenURL: "" } }))
        .oauth2Config,
    ).toEqual({ clientID: "id", clientSecret: "s", authURL: "", tokenURL: "" });
  });
});

describe("prompts", () => {
  it("accept arguments and messages of the MCP shape", () => {
    const body = {
      arguments: [{ name: "who", description: "the name", required: true }, { name: "tone" }],
      messages: [
        { role: "user", content: { type: "text", text: "Greet {{who}}" } },
        { role: "assistant", content: { type: "text", text: "Hello!" } },
      ],
    };
    expect(expectRight(prompt(body))).toEqual({ name: "greet", ...body });
  });

  it("refuse malformed arguments", () => {
    expect(problemPaths(prompt({ arguments: [{ description: "no name" }] }))).toEqual(["prompt.arguments[0].name"]);
    expect(problemPaths(prompt({ arguments: [{ name: "9lives" }] }))).toEqual(["prompt.arguments[0].name"]);
    expect(problemPaths(prompt({ arguments: [{ name: "a", required: "yes" }] }))).toEqual([
      "prompt.arguments[0].required",
    ]);
    expect(problemPaths(prompt({ arguments: { name: "a" } }))).toEqual(["prompt.arguments"]);
  });

  it("refuse duplicate argument names, at the duplicate", () => {
    const problems = expectProblems(prompt({ arguments: [{ name: "a" }, { name: "b" }, { name: "a" }] }));
    expect(problems.map((p) => p.path)).toEqual(["prompt.arguments[2].name"]);
    expect(problems[0]?.message).toContain("duplicate");
  });

  it("refuse malformed messages", () => {
    expect(problemPaths(prompt({ messages: [{ role: "system", content: { type: "text", text: "x" } }] }))).toEqual([
      "prompt.messages[0].role",
    ]);
    expect(problemPaths(prompt({ messages: [{ role: "user", content: { type: "image", text: "x" } }] }))).toEqual([
      "prompt.messages[0].content.type",
    ]);
    expect(problemPaths(prompt({ messages: [{ role: "user", content: { type: "text" } }] }))).toEqual([
      "prompt.messages[0].content.text",
    ]);
    expect(problemPaths(prompt({ messages: [{ role: "user", content: "hi" }] }))).toEqual([
      "prompt.messages[0].content",
    ]);
  });
});

describe("resources", () => {
  it("accept size ≥ 0 and a media type", () => {
    const value = expectRight(resource({ size: 0, mimeType: "text/plain; charset=utf-8" }));
    expect(value.size).toBe(0);
    expect(expectRight(resource({ size: 1024 })).size).toBe(1024);
    expect(expectRight(resource({ mimeType: "" })).mimeType).toBe("");
  });

  it("refuse negative, fractional or non-numeric sizes", () => {
    for (const size of [-1, 1.5, "10", Number.MAX_SAFE_INTEGER + 2])
      expect(problemPaths(resource({ size }))).toEqual(["resource.size"]);
  });

  it("refuse a malformed media type", () => {
    for (const mimeType of ["text", "text/", "/plain", "text/plain; charset"])
      expect(problemPaths(resource({ mimeType }))).toEqual(["resource.mimeType"]);
  });

  it("accept annotations with priority 0..1 and audience user/assistant", () => {
    const annotations = { priority: 0.5, audience: ["user", "assistant"], lastModified: "2030-01-01T00:00:00Z" };
    expect(expectRight(resource({ annotations })).annotations).toEqual(annotations);
    expect(expectRight(resource({ annotations: { priority: 0 } })).annotations?.priority).toBe(0);
    expect(expectRight(resource({ annotations: { priority: 1 } })).annotations?.priority).toBe(1);
  });

  it("refuse priority outside 0..1, an unknown audience and a bad date", () => {
    expect(problemPaths(resource({ annotations: { priority: 1.01 } }))).toEqual(["resource.annotations.priority"]);
    expect(problemPaths(resource({ annotations: { priority: -0.1 } }))).toEqual(["resource.annotations.priority"]);
    expect(problemPaths(resource({ annotations: { audience: ["user", "system"] } }))).toEqual([
      "resource.annotations.audience[1]",
    ]);
    expect(problemPaths(resource({ annotations: { lastModified: "yesterday" } }))).toEqual([
      "resource.annotations.lastModified",
    ]);
    expect(problemPaths(resource({ annotations: { importance: 1 } }))).toEqual(["resource.annotations.importance"]);
  });
});

describe("server tokens", () => {
  it("accept an RFC 3339 expiry or null", () => {
    const token = (fields: Record<string, unknown>) =>
      decode("token", ServerTokenCreate, SERVER_TOKEN_OUTPUT_FIELDS, { token: { name: "ci", ...fields } });
    expect(expectRight(token({ expiresAt: "2030-01-01T00:00:00Z" })).expiresAt).toBe("2030-01-01T00:00:00Z");
    expect(expectRight(token({ expiresAt: "2030-01-01T00:00:00.5+02:00" })).expiresAt).toBeDefined();
    expect(expectRight(token({ expiresAt: null })).expiresAt).toBeNull();
    for (const expiresAt of ["2030-01-01", "2030-13-01T00:00:00Z", "tomorrow", 1893456000])
      expect(problemPaths(token({ expiresAt }))).toEqual(["token.expiresAt"]);
  });
});
