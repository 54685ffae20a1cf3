import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PROVIDER_OUTPUT_FIELDS, ProviderCreate } from "../src/provider/provider-schema.js";
import { TOOL_OUTPUT_FIELDS, ToolCreate } from "../src/tool/tool-schema.js";
import { unstorableText, unstorableTextProblems } from "../src/validation/decode-write.js";
import { VARIABLE_OUTPUT_FIELDS, VariableCreate } from "../src/variable/variable-schema.js";
import { decode, expectProblems } from "./support/decode.js";

// PostgreSQL's text and jsonb cannot hold U+0000, and unpaired surrogates are not Unicode text: every string
// of every write (keys included) is checked once, in decodeEnvelope, and refused with 400 naming its path.

describe("text no store can keep", () => {
  it("NUL anywhere in a field is refused, naming the field, without repeating the value", () => {
    const problems = expectProblems(
      decode("variable", VariableCreate, VARIABLE_OUTPUT_FIELDS, {
        variable: { type: "SECRET", name: "TOKEN", value: "s3cr3t\u0000tail" },
      }),
    );
    expect(problems).toEqual([{ path: "variable.value", message: "must not contain the NUL character (U+0000)" }]);
    expect(JSON.stringify(problems)).not.toContain("s3cr3t");
  });

  it("nested strings and object keys are checked too (JSON Schemas, headers, OAuth settings)", () => {
    const problems = expectProblems(
      decode("tool", ToolCreate, TOOL_OUTPUT_FIELDS, {
        tool: {
          name: "getItem",
          method: "GET",
          path: "/items",
          pathArgsJSONSchema: { type: "object", properties: { "a\u0000b": { type: "string" } } },
          headers: [{ key: "X-Key", value: "v\u0000" }],
        },
      }),
    );
    expect(problems.map((p) => p.path).sort()).toEqual(["tool.headers[0].value", "tool.pathArgsJSONSchema.properties"]);
    const oauth = expectProblems(
      decode("provider", ProviderCreate, PROVIDER_OUTPUT_FIELDS, {
        provider: { name: "p", baseURL: "https://x.example", oauth2Config: { clientSecret: "\ud800" } },
      }),
    );
    expect(oauth).toEqual([
      { path: "provider.oauth2Config.clientSecret", message: "must be well-formed Unicode (no unpaired surrogate)" },
    ]);
  });

  it("well-formed text is untouched: paired surrogates (emoji) and every other control character pass", () => {
    expect(unstorableText("😀 tab\t newline\n \u0001 \uFFFF")).toBeUndefined();
    expect(unstorableText("\ud83d")).toBeDefined();
    expect(unstorableText("\ude00x")).toBeDefined();
    expect(unstorableText("x\u0000")).toBeDefined();
  });

  it("property: a string is refused exactly when it has NUL or is not well-formed", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const wellFormed = Buffer.from(s, "utf8").toString("utf8") === s;
        expect(unstorableText(s) === undefined).toBe(wellFormed && !s.includes("\u0000"));
      }),
      { numRuns: 500 },
    );
  });

  it("property: the problems name exactly the paths of the bad strings", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.string({ unit: "binary" }), (value, bad) => {
        const tainted = { good: value, bad: `${bad}\u0000` };
        const paths = unstorableTextProblems("x", tainted).map((p) => p.path);
        expect(paths).toContain("x.bad");
      }),
      { numRuns: 300 },
    );
  });
});
