import { Ajv } from "ajv";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  compileFilter,
  countTokens,
  deriveOutputSchema,
  FilterSandbox,
  fitToTokens,
  type JsonSchema,
  pagingHintsOf,
  structuredContentOf,
} from "../src/index.js";
import { applyFilter } from "../src/index.js";

const ajv = new Ajv({ strict: false, allErrors: true });
const sandbox = new FilterSandbox();
afterAll(() => sandbox.close());

const customer: JsonSchema = {
  type: "object",
  properties: {
    id: { type: "string" },
    email: { type: "string" },
    name: { type: ["string", "null"] },
    balance: { type: "integer" },
    tags: { type: "array", items: { type: "string" } },
    address: {
      type: "object",
      properties: { city: { type: "string" }, country: { type: "string" } },
      required: ["city"],
    },
  },
  required: ["id", "email", "balance", "tags"],
};
const listSchema: JsonSchema = {
  type: "object",
  properties: { data: { type: "array", items: customer }, has_more: { type: "boolean" }, url: { type: "string" } },
  required: ["data", "has_more"],
};

const customerArb = fc.record(
  {
    id: fc.string(),
    email: fc.string(),
    name: fc.option(fc.string(), { nil: null }),
    balance: fc.integer(),
    tags: fc.array(fc.string(), { maxLength: 3 }),
    address: fc.record({ city: fc.string(), country: fc.string() }, { requiredKeys: ["city"] }),
  },
  { requiredKeys: ["id", "email", "balance", "tags"] },
);
const listArb = fc.record(
  { data: fc.array(customerArb, { maxLength: 8 }), has_more: fc.boolean(), url: fc.string() },
  { requiredKeys: ["data", "has_more"] },
);

describe("deriveOutputSchema", () => {
  it.each([
    ["data[*].{id: id, email: email, city: address.city}", "array"],
    ["data[:3].id", "array"],
    ["data[0]", "any"],
    ["{items: data[*].[id, balance], more: has_more}", "object"],
    ["data[*].tags[]", "array"],
    ["data[?balance > `0`].name", "array"],
    ["length(data)", "integer"],
    ["has_more", "boolean"],
    ["data[*].address.city | sort(@)", "array"],
  ])("derives `%s` so that every real result validates", async (expression, kind) => {
    const compiled = await compileFilter({ language: "jmespath", expression }, { sandbox });
    if (!compiled.ok) throw new Error(compiled.problem.message);
    const outputSchema = deriveOutputSchema(listSchema, compiled.filter);
    expect(outputSchema.type).toBe("object");
    if (kind !== "any") expect(outputSchema).not.toEqual({ type: "object" });
    const validate = ajv.compile(outputSchema);
    await fc.assert(
      fc.asyncProperty(listArb, async (answer) => {
        const outcome = await applyFilter(compiled.filter, answer, { sandbox });
        if (!outcome.ok) throw new Error(outcome.message);
        const ok = validate(structuredContentOf(outcome.value));
        if (!ok) throw new Error(JSON.stringify({ value: outcome.value, errors: validate.errors }));
      }),
      { numRuns: 60 },
    );
  });

  it("is the permissive object schema for jq and for an unknown answer", async () => {
    const jq = await compileFilter({ language: "jq", expression: ".data" }, { sandbox });
    if (!jq.ok) throw new Error(jq.problem.message);
    expect(deriveOutputSchema(listSchema, jq.filter)).toEqual({ type: "object" });
    expect(deriveOutputSchema(null, undefined)).toEqual({ type: "object" });
  });

  it("keeps field types: a selected string stays a string", async () => {
    const compiled = await compileFilter({ language: "jmespath", expression: "data[*].{id: id}" }, { sandbox });
    if (!compiled.ok) throw new Error(compiled.problem.message);
    const schema = deriveOutputSchema(listSchema, compiled.filter);
    const validate = ajv.compile(schema);
    expect(validate({ result: [{ id: "x" }] })).toBe(true);
    expect(validate({ result: [{ id: 7 }] })).toBe(false);
  });
});

const bigAnswer = (n: number) => ({
  data: Array.from({ length: n }, (_, i) => ({
    id: `cus_${i}`,
    email: `user${i}@example.com`,
    name: `Customer number ${i}`,
    balance: i * 7,
    tags: ["a", "b"],
    address: { city: "Berlin", country: "DE" },
  })),
  has_more: true,
  url: "/v1/customers",
});
const queryArgs = {
  type: "object",
  properties: { limit: { type: "integer" }, starting_after: { type: "string" }, email: { type: "string" } },
};

describe("fitToTokens", () => {
  it("leaves an answer within the budget as it is", () => {
    const answer = bigAnswer(3);
    const fit = fitToTokens(answer, 25_000, { schema: listSchema });
    expect(fit).toMatchObject({ fits: true, value: answer, cut: undefined });
  });

  it("cuts whole items to fit, says what it cut and how to page, and still validates", () => {
    const answer = bigAnswer(4000);
    const fit = fitToTokens(answer, 5_000, { schema: listSchema, queryArgsSchema: queryArgs });
    expect(fit.fits).toBe(true);
    expect(countTokens(fit.text)).toBeLessThanOrEqual(5_000);
    expect(countTokens(fit.text)).toBeGreaterThan(3_000);
    expect(ajv.validate(listSchema, fit.value)).toBe(true);
    const kept = (fit.value as { data: Array<unknown> }).data;
    expect(kept).toEqual(answer.data.slice(0, kept.length));
    expect(fit.cut?.arrays).toEqual([{ path: "data", kept: kept.length, of: 4000 }]);
    expect(fit.cut?.message).toMatch(/`limit`.*`starting_after`/);
    expect(fit.tokens.before).toBeGreaterThan(5_000);
  });

  it("cuts a root array and keeps minItems", () => {
    const items = bigAnswer(500).data;
    const schema = { type: "array", items: customer, minItems: 2 };
    const fit = fitToTokens(items, 200, { schema });
    expect(Array.isArray(fit.value)).toBe(true);
    expect((fit.value as Array<unknown>).length).toBeGreaterThanOrEqual(2);
    expect(ajv.validate(schema, fit.value)).toBe(true);
  });

  it("drops optional properties, never required ones, and says it cannot fit when nothing else can go", () => {
    const schema = {
      type: "object",
      properties: { big: { type: "string" }, id: { type: "string" } },
      required: ["id"],
    };
    const fit = fitToTokens({ id: "x", big: "word ".repeat(5000) }, 100, { schema });
    expect(fit).toMatchObject({ fits: true, value: { id: "x" } });
    expect(fit.cut?.properties).toEqual(["big"]);
    const stuck = fitToTokens({ id: "word ".repeat(5000) }, 100, { schema });
    expect(stuck.fits).toBe(false);
  });
});

describe("pagingHintsOf", () => {
  it("sorts the query arguments into page size, position and narrowing", () => {
    const hints = pagingHintsOf({
      type: "object",
      properties: { per_page: {}, page: {}, cursor: {}, filter: {}, q: {}, color: {}, pageToken: {} },
    });
    expect(hints).toEqual({
      pageSize: ["per_page"],
      position: ["page", "cursor", "pageToken"],
      narrow: ["filter", "q"],
    });
  });
});
