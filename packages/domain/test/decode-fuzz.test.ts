import { Either, type Schema } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PROMPT_OUTPUT_FIELDS, PromptCreate } from "../src/prompt/prompt-schema.js";
import { PROVIDER_OUTPUT_FIELDS, ProviderCreate } from "../src/provider/provider-schema.js";
import { RESOURCE_OUTPUT_FIELDS, ResourceCreate } from "../src/resource/resource-schema.js";
import { SERVER_OUTPUT_FIELDS, ServerCreate } from "../src/server/server-schema.js";
import { SERVER_TOKEN_OUTPUT_FIELDS, ServerTokenCreate } from "../src/server-token/server-token-schema.js";
import { TOOL_OUTPUT_FIELDS, ToolCreate } from "../src/tool/tool-schema.js";
import { VARIABLE_OUTPUT_FIELDS, VariableCreate } from "../src/variable/variable-schema.js";
import { decode } from "./support/decode.js";

const CREATE_SCHEMAS: ReadonlyArray<{
  envelope: string;
  schema: Schema.Schema<unknown, unknown>;
  ignored: ReadonlyArray<string>;
}> = [
  { envelope: "provider", schema: ProviderCreate as Schema.Schema<unknown, unknown>, ignored: PROVIDER_OUTPUT_FIELDS },
  { envelope: "tool", schema: ToolCreate as Schema.Schema<unknown, unknown>, ignored: TOOL_OUTPUT_FIELDS },
  { envelope: "prompt", schema: PromptCreate as Schema.Schema<unknown, unknown>, ignored: PROMPT_OUTPUT_FIELDS },
  { envelope: "resource", schema: ResourceCreate as Schema.Schema<unknown, unknown>, ignored: RESOURCE_OUTPUT_FIELDS },
  { envelope: "variable", schema: VariableCreate as Schema.Schema<unknown, unknown>, ignored: VARIABLE_OUTPUT_FIELDS },
  {
    envelope: "token",
    schema: ServerTokenCreate as Schema.Schema<unknown, unknown>,
    ignored: SERVER_TOKEN_OUTPUT_FIELDS,
  },
  { envelope: "server", schema: ServerCreate as Schema.Schema<unknown, unknown>, ignored: SERVER_OUTPUT_FIELDS },
];

/** Decoding never throws: it yields a value, or an InvalidArgument with located problems. */
const checkOutcome = (
  envelope: string,
  schema: Schema.Schema<unknown, unknown>,
  ignored: ReadonlyArray<string>,
  body: unknown,
) => {
  const result = decode(envelope, schema, ignored, body);
  if (Either.isLeft(result)) {
    expect(result.left._tag).toBe("InvalidArgument");
    expect(result.left.errors.length).toBeGreaterThan(0);
    for (const problem of result.left.errors) {
      expect(typeof problem.path).toBe("string");
      expect(typeof problem.message).toBe("string");
      // No member of an optional field's union leaks out as a problem of its own.
      expect(problem.message).not.toMatch(/^Expected undefined,/);
    }
    expect(typeof result.left.detail).toBe("string");
  } else {
    expect(typeof result.right).toBe("object");
  }
};

describe("decodeEnvelope on arbitrary JSON", () => {
  for (const { envelope, schema, ignored } of CREATE_SCHEMAS) {
    it(`${envelope}: any JSON body`, () => {
      fc.assert(
        fc.property(fc.jsonValue(), (body) => checkOutcome(envelope, schema, ignored, body)),
        { numRuns: 300 },
      );
    });

    it(`${envelope}: any JSON inside the envelope`, () => {
      fc.assert(
        fc.property(fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue())), (inner) =>
          checkOutcome(envelope, schema, ignored, { [envelope]: inner }),
        ),
        { numRuns: 300 },
      );
    });
  }

  it("tool: arbitrary JSON in each field, including the JSON Schema fields", () => {
    const fields = [
      "name",
      "method",
      "path",
      "title",
      "description",
      "pathArgsJSONSchema",
      "queryArgsJSONSchema",
      "reqBodyJSONSchema",
      "headers",
      "oauth2Scopes",
    ];
    fc.assert(
      fc.property(
        fc.record(Object.fromEntries(fields.map((f) => [f, fc.jsonValue()])), { requiredKeys: [] }),
        (inner) =>
          checkOutcome("tool", ToolCreate as Schema.Schema<unknown, unknown>, TOOL_OUTPUT_FIELDS, { tool: inner }),
      ),
      { numRuns: 500 },
    );
  });
});
