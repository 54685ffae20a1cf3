import { describe, expect, it } from "vitest";
import { PROVIDER_OUTPUT_FIELDS, ProviderPatch } from "../src/provider/provider-schema.js";
import { SERVER_TOKEN_OUTPUT_FIELDS, ServerTokenCreate } from "../src/server-token/server-token-schema.js";
import { httpUrlProblem } from "../src/validation/http-url.js";
import { VARIABLE_OUTPUT_FIELDS, VariablePatch } from "../src/variable/variable-schema.js";
import { decode, expectProblems, expectRight, problemPaths } from "./support/decode.js";
import { prompt, provider, resource, variable } from "./support/field-decoders.js";

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
