import { describe, expect, it } from "vitest";
import { PROMPT_OUTPUT_FIELDS, PromptCreate } from "../src/prompt/prompt-schema.js";
import { PROVIDER_OUTPUT_FIELDS, ProviderCreate, ProviderPatch } from "../src/provider/provider-schema.js";
import { RESOURCE_OUTPUT_FIELDS, ResourceCreate } from "../src/resource/resource-schema.js";
import { SERVER_OUTPUT_FIELDS, ServerCreate, ServerPatch } from "../src/server/server-schema.js";
import { SERVER_TOKEN_OUTPUT_FIELDS, ServerTokenCreate } from "../src/server-token/server-token-schema.js";
import { TOOL_OUTPUT_FIELDS, ToolCreate } from "../src/tool/tool-schema.js";
import { decodePathId, invalid, jsonPath, MAX_LISTED_PROBLEMS } from "../src/validation/decode-write.js";
import { VARIABLE_OUTPUT_FIELDS, VariableCreate } from "../src/variable/variable-schema.js";
import { Effect, Either } from "effect";
import { type AnyWriteSchema, decode, expectProblems, expectRight, problemPaths } from "./support/decode.js";

const provider = (fields: Record<string, unknown>) =>
  decode("provider", ProviderCreate, PROVIDER_OUTPUT_FIELDS, { provider: fields });

describe("the envelope", () => {
  it("is required", () => {
    const problems = expectProblems(decode("provider", ProviderCreate, PROVIDER_OUTPUT_FIELDS, {}));
    expect(problems).toContainEqual({ path: "provider", message: "is required" });
  });

  it("must wrap the record (a bare record is refused)", () => {
    const problems = expectProblems(
      decode("provider", ProviderCreate, PROVIDER_OUTPUT_FIELDS, { name: "GitHub", baseURL: "https://api.github.com" }),
    );
    expect(problems).toContainEqual({ path: "provider", message: "is required" });
    expect(problems).toContainEqual({ path: "name", message: "unknown field" });
    expect(problems).toContainEqual({ path: "baseURL", message: "unknown field" });
  });

  it("must hold an object", () => {
    for (const inner of [null, "x", 1, [], true]) {
      const problems = expectProblems(decode("provider", ProviderCreate, PROVIDER_OUTPUT_FIELDS, { provider: inner }));
      expect(problems).toContainEqual({ path: "provider", message: "must be an object" });
    }
  });

  it("must be an object body", () => {
    for (const body of [null, undefined, "provider", 42, [{ provider: {} }]]) {
      const problems = expectProblems(decode("provider", ProviderCreate, PROVIDER_OUTPUT_FIELDS, body));
      expect(problems).toHaveLength(1);
      expect(problems[0]?.path).toBe("");
    }
  });

  it("may not carry fields beside the envelope", () => {
    const problems = expectProblems(
      decode("provider", ProviderCreate, PROVIDER_OUTPUT_FIELDS, {
        provider: { name: "GitHub", baseURL: "https://api.github.com" },
        extra: 1,
      }),
    );
    expect(problems).toEqual([{ path: "extra", message: "unknown field" }]);
  });

  it("decodes a valid body with defaults left absent", () => {
    const value = expectRight(provider({ name: "GitHub", baseURL: "https://api.github.com" }));
    expect(value).toEqual({ name: "GitHub", baseURL: "https://api.github.com" });
  });
});

describe("unknown and output-only fields", () => {
  it("refuses an unknown field, naming its path", () => {
    const problems = expectProblems(provider({ nmae: "GitHub", name: "GitHub", baseURL: "https://api.github.com" }));
    expect(problems).toEqual([{ path: "provider.nmae", message: "unknown field" }]);
  });

  it("refuses unknown nested fields with their full path", () => {
    const problems = expectProblems(
      provider({ name: "GitHub", baseURL: "https://api.github.com", oauth2Config: { clientId: "x" } }),
    );
    expect(problems).toContainEqual({ path: "provider.oauth2Config.clientId", message: "unknown field" });

    const tool = expectProblems(
      decode("tool", ToolCreate, TOOL_OUTPUT_FIELDS, {
        tool: { name: "getRepo", method: "GET", path: "/x", headers: [{ key: "X-A", value: "1", extra: true }] },
      }),
    );
    expect(tool).toContainEqual({ path: "tool.headers[0].extra", message: "unknown field" });
  });

  it("ignores the output-only fields of each record", () => {
    const cases: ReadonlyArray<{
      envelope: string;
      schema: AnyWriteSchema;
      ignored: ReadonlyArray<string>;
      fields: Record<string, unknown>;
    }> = [
      {
        envelope: "provider",
        schema: ProviderCreate,
        ignored: PROVIDER_OUTPUT_FIELDS,
        fields: { name: "GitHub", baseURL: "https://api.github.com" },
      },
      {
        envelope: "tool",
        schema: ToolCreate,
        ignored: TOOL_OUTPUT_FIELDS,
        fields: { name: "a", method: "GET", path: "/" },
      },
      { envelope: "prompt", schema: PromptCreate, ignored: PROMPT_OUTPUT_FIELDS, fields: { name: "p" } },
      {
        envelope: "resource",
        schema: ResourceCreate,
        ignored: RESOURCE_OUTPUT_FIELDS,
        fields: { name: "r", uri: "https://example.com/r" },
      },
      {
        envelope: "variable",
        schema: VariableCreate,
        ignored: VARIABLE_OUTPUT_FIELDS,
        fields: { type: "ENV", name: "A", value: "1" },
      },
      { envelope: "token", schema: ServerTokenCreate, ignored: SERVER_TOKEN_OUTPUT_FIELDS, fields: { name: "t" } },
      { envelope: "server", schema: ServerCreate, ignored: SERVER_OUTPUT_FIELDS, fields: { name: "s" } },
    ];
    for (const { envelope, schema, ignored, fields } of cases) {
      const outputOnly = Object.fromEntries(ignored.map((key) => [key, key === "tools" ? [{ bogus: 1 }] : "whatever"]));
      const value = expectRight(decode(envelope, schema, ignored, { [envelope]: { ...fields, ...outputOnly } }));
      for (const key of ignored) if (!(key in fields)) expect(value).not.toHaveProperty(key);
    }
  });

  it("ignores provider id, createdAt, updatedAt, secretPrefix and tools specifically", () => {
    const value = expectRight(
      provider({
        id: "not an id at all",
        createdAt: 5,
        updatedAt: null,
        secretPrefix: "EVIL",
        tools: "nonsense",
        name: "GitHub",
        baseURL: "https://api.github.com",
      }),
    );
    expect(value).toEqual({ name: "GitHub", baseURL: "https://api.github.com" });
  });
});

describe("problem reporting", () => {
  it("reports every problem at once", () => {
    const problems = expectProblems(
      provider({ nmae: "x", name: "", baseURL: "ftp://x", apiType: "INVALID", visibilityType: "INVALID" }),
    );
    const paths = problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "provider.nmae",
        "provider.name",
        "provider.baseURL",
        "provider.apiType",
        "provider.visibilityType",
      ]),
    );
    expect(problems.length).toBeGreaterThanOrEqual(5);
  });

  it("locates nested array problems with JSON paths", () => {
    const problems = expectProblems(
      decode("server", ServerCreate, SERVER_OUTPUT_FIELDS, {
        server: {
          name: "s",
          providers: [{ id: "Ab3dE5gH9jK", tools: [{ id: "Zz9yY8xX7wW" }, { id: "bad" }] }],
          resources: [{ id: 1 }],
          prompts: [{ id: "Ab3dE5gH9jK" }, {}],
        },
      }),
    );
    const paths = problems.map((p) => p.path);
    expect(paths).toContain("server.providers[0].tools[1].id");
    expect(paths).toContain("server.resources[0].id");
    expect(paths).toContain("server.prompts[1].id");
    expect(problems.find((p) => p.path === "server.prompts[1].id")?.message).toBe("is required");
  });

  it("reports a bad enum value once, naming every allowed value", () => {
    const problems = expectProblems(
      decode("tool", ToolCreate, TOOL_OUTPUT_FIELDS, { tool: { name: "a", method: "TRACE", path: "/" } }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe("tool.method");
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
      expect(problems[0]?.message).toContain(`"${method}"`);
  });

  it("reports a bad optional or nullable field once, at its own path, without union noise", () => {
    const problems = expectProblems(
      provider({
        name: "GitHub",
        baseURL: "https://api.github.com",
        description: 5,
        oauth2Config: { clientID: "x", authURL: "ftp://auth" },
      }),
    );
    expect(problems.map((p) => p.path)).toEqual(["provider.description", "provider.oauth2Config.authURL"]);
    for (const { message } of problems) expect(message).not.toMatch(/Expected (undefined|null)/);
  });

  it("summarises the first problem in the detail", () => {
    const result = provider({ name: "", baseURL: "nope" });
    expect(Either.isLeft(result)).toBe(true);
    if (Either.isLeft(result)) {
      const [first] = result.left.errors;
      expect(result.left.detail.startsWith(`${first?.path}: ${first?.message}`)).toBe(true);
      expect(result.left.detail).toContain("(and 1 more)");
    }
  });

  it("jsonPath renders keys and indexes", () => {
    expect(jsonPath("server", ["providers", 0, "tools", 1, "id"])).toBe("server.providers[0].tools[1].id");
    expect(jsonPath("", ["a", "b"])).toBe("a.b");
    expect(jsonPath("x", [])).toBe("x");
  });

  it("invalid() with no problems still has a detail", () => {
    expect(invalid([]).detail).toBe("invalid request");
  });

  it("decodePathId accepts ids and refuses anything else", () => {
    expect(Effect.runSync(decodePathId("id", "Ab3dE5gH9jK"))).toBe("Ab3dE5gH9jK");
    const failed = Effect.runSync(Effect.either(decodePathId("toolID", "Ab3dE5gH9j!")));
    expect(Either.isLeft(failed) && failed.left.errors).toEqual([
      { path: "toolID", message: "must be 11 letters or digits" },
    ]);
  });
});

describe("required fields on create", () => {
  const cases: ReadonlyArray<{
    envelope: string;
    schema: AnyWriteSchema;
    ignored: ReadonlyArray<string>;
    required: ReadonlyArray<string>;
  }> = [
    { envelope: "provider", schema: ProviderCreate, ignored: PROVIDER_OUTPUT_FIELDS, required: ["name", "baseURL"] },
    { envelope: "tool", schema: ToolCreate, ignored: TOOL_OUTPUT_FIELDS, required: ["name", "method", "path"] },
    { envelope: "prompt", schema: PromptCreate, ignored: PROMPT_OUTPUT_FIELDS, required: ["name"] },
    { envelope: "resource", schema: ResourceCreate, ignored: RESOURCE_OUTPUT_FIELDS, required: ["name", "uri"] },
    {
      envelope: "variable",
      schema: VariableCreate,
      ignored: VARIABLE_OUTPUT_FIELDS,
      required: ["type", "name", "value"],
    },
    { envelope: "token", schema: ServerTokenCreate, ignored: SERVER_TOKEN_OUTPUT_FIELDS, required: ["name"] },
    { envelope: "server", schema: ServerCreate, ignored: SERVER_OUTPUT_FIELDS, required: ["name"] },
  ];

  for (const { envelope, schema, ignored, required } of cases) {
    it(`${envelope}: ${required.join(", ")}`, () => {
      const problems = expectProblems(decode(envelope, schema, ignored, { [envelope]: {} }));
      expect(problems).toEqual(
        expect.arrayContaining(required.map((field) => ({ path: `${envelope}.${field}`, message: "is required" }))),
      );
      expect(problems.filter((p) => p.message === "is required")).toHaveLength(required.length);
    });
  }

  it("patch shapes require nothing", () => {
    expect(expectRight(decode("provider", ProviderPatch, PROVIDER_OUTPUT_FIELDS, { provider: {} }))).toEqual({});
    expect(expectRight(decode("server", ServerPatch, SERVER_OUTPUT_FIELDS, { server: {} }))).toEqual({});
  });

  it("server version, when sent, must be a 32-bit integer", () => {
    expect(
      problemPaths(decode("server", ServerCreate, SERVER_OUTPUT_FIELDS, { server: { name: "s", version: 1.5 } })),
    ).toEqual(["server.version"]);
  });
});

describe("hostile bodies (issue 10)", () => {
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, 1]));
  const failure = (result: ReturnType<typeof provider>) => {
    if (Either.isRight(result)) throw new Error("expected a failure");
    return result.left;
  };

  it("60,000 unknown fields: the first 100 are listed with the count of all, and the answer stays small", () => {
    const error = failure(provider({ name: "GitHub", baseURL: "https://api.github.com", ...many(60_000) }));
    expect(error.errors).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(error.errors[0]).toEqual({ path: "provider.f0", message: "unknown field" });
    expect(error.errorCount).toBe(60_000);
    expect(error.detail).toBe("provider.f0: unknown field (and 59999 more); the first 100 are listed");
    expect(JSON.stringify(error).length).toBeLessThan(10_000);
  });

  it("thousands of nested problems: the work stops at the first one (no issue per value is built)", () => {
    for (const body of [
      { name: "x", baseURL: "https://api.github.com", oauth2Config: many(60_000) },
      {
        name: "x",
        baseURL: "https://api.github.com",
        iconURL: 1,
        description: 2,
        ...{ apiType: Array(60_000).fill(1) },
      },
    ]) {
      const error = failure(provider(body));
      expect(error.errors.length).toBeGreaterThanOrEqual(1);
      expect(error.errors.length).toBeLessThanOrEqual(MAX_LISTED_PROBLEMS);
      expect(JSON.stringify(error).length).toBeLessThan(10_000);
    }
    const tool = decode("tool", ToolCreate, TOOL_OUTPUT_FIELDS, {
      tool: {
        name: "x",
        method: "GET",
        path: "/x",
        headers: Array.from({ length: 60_000 }, () => ({ key: "", value: 1 })),
      },
    });
    expect(problemPaths(tool)).toEqual(["tool.headers[0].key"]);
  });

  it("a small body still lists every problem", () => {
    const problems = expectProblems(provider({ name: "", baseURL: "ftp://x", iconURL: 1, extra: 1 }));
    expect(problems.map((p) => p.path).sort()).toEqual([
      "provider.baseURL",
      "provider.extra",
      "provider.iconURL",
      "provider.name",
    ]);
  });

  it("invalid() caps any list it is given", () => {
    const error = invalid(Array.from({ length: 250 }, (_, i) => ({ path: `p${i}`, message: "bad" })));
    expect(error.errors).toHaveLength(100);
    expect(error.errorCount).toBe(250);
    expect(invalid([{ path: "a", message: "bad" }]).errorCount).toBeUndefined();
  });
});
