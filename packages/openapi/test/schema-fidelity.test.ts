import * as D from "@mcpsm/domain/schemas";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { Either, Schema } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../src/index.js";

// The document's JSON Schemas of the write shapes come from effect's JSONSchema plus `jsonSchema`
// annotations on the domain's custom filters. These properties check that each annotation says exactly what
// the filter accepts: a client that validates against the document sends what the service accepts.

const doc = openApiDocument();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const BASE = "https://mcpsm.invalid/openapi.json";
ajv.addSchema({ $id: BASE, components: { schemas: doc.components.schemas } });
const jsonAccepts = (component: string) => {
  const validate = ajv.getSchema(`${BASE}#/components/schemas/${component}`)!;
  return (value: unknown) => validate(value) as boolean;
};
const effectAccepts = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema, { onExcessProperty: "error" });
  return (value: unknown) => Either.isRight(decode(value));
};

/** Both sides agree on every generated value. */
const agree = <V>(
  component: string,
  schema: Schema.Schema<unknown, unknown>,
  values: fc.Arbitrary<V>,
  wrap: (v: V) => unknown,
) => {
  const json = jsonAccepts(component);
  const service = effectAccepts(schema);
  fc.assert(
    fc.property(values, (v) => {
      const body = wrap(v);
      expect(json(body), JSON.stringify(body)).toBe(service(body));
    }),
    { numRuns: 400 },
  );
};

const from = (chars: ReadonlyArray<string>, maxLength: number) =>
  fc.array(fc.constantFrom(...chars), { maxLength }).map((a) => a.join(""));

describe("the JSON Schemas of the write shapes accept exactly what the service accepts", () => {
  it("names: white space around 1–100 characters (Trim, then length)", () => {
    const chars = [" ", "\t", "\n", "\u00a0", "\ufeff", "a", "B", "é", "-", "."];
    const names = fc.oneof(from(chars, 12), from(chars, 110), fc.string({ maxLength: 120 }));
    agree("ServerCreate", D.ServerCreate as Schema.Schema<unknown, unknown>, names, (name) => ({ name }));
  });

  it("tool paths: /, no white space, query or fragment, balanced {name} placeholders", () => {
    const chars = ["/", "/", "{", "}", "a", "Z", "_", "1", "-", " ", "?", "#", "\u0001", "\u007f", "%", "."];
    const tool = (path: string) => ({ name: "getThing", method: "GET", path });
    agree("ToolCreate", D.ToolCreate as Schema.Schema<unknown, unknown>, from(chars, 16), tool);
    agree(
      "ToolCreate",
      D.ToolCreate as Schema.Schema<unknown, unknown>,
      fc.string({ maxLength: 20 }).map((s) => `/${s}`),
      tool,
    );
  });

  it("tool header names: HTTP tokens, never hop-by-hop or framing headers (any case)", () => {
    const forbidden = fc
      .tuple(fc.constantFrom(...D.FORBIDDEN_HEADERS), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }))
      .map(([name, upper]) => Array.from(name, (c, i) => (upper[i] ? c.toUpperCase() : c)).join(""));
    const token = from(["a", "X", "-", "_", "1", "!", "~", " ", ":", "(", "é", "\n"], 10);
    const names = fc.oneof(
      forbidden,
      token,
      forbidden.map((n) => `${n}x`),
      forbidden.map((n) => `x-${n}`),
    );
    agree("ToolCreate", D.ToolCreate as Schema.Schema<unknown, unknown>, names, (key) => ({
      name: "getThing",
      method: "GET",
      path: "/x",
      headers: [{ key, value: "v" }],
    }));
  });

  it("tool header values: no CR, LF or NUL", () => {
    const values = from(["a", " ", "${", "}", "\r", "\n", "\u0000", "\t", "é"], 10);
    agree("ToolCreate", D.ToolCreate as Schema.Schema<unknown, unknown>, values, (value) => ({
      name: "getThing",
      method: "GET",
      path: "/x",
      headers: [{ key: "X-Api-Key", value }],
    }));
  });

  it("tool methods: the seven methods (the document names them upper case; the service also takes lower case)", () => {
    const json = jsonAccepts("ToolCreate");
    const service = effectAccepts(D.ToolCreate as Schema.Schema<unknown, unknown>);
    for (const method of D.HTTP_METHODS) {
      const tool = { name: "getThing", method, path: "/x" };
      expect(json(tool)).toBe(true);
      expect(service(tool)).toBe(true);
      expect(service({ ...tool, method: method.toLowerCase() })).toBe(true);
    }
    for (const method of ["CONNECT", "TRACE", "", "FETCH"]) {
      expect(json({ name: "getThing", method, path: "/x" })).toBe(false);
      expect(service({ name: "getThing", method, path: "/x" })).toBe(false);
    }
  });

  it("resource media types", () => {
    const chars = ["text", "/", "plain", ";", " ", "charset", "=", "utf-8", '"', "x", "+json", "\r"];
    agree("ResourceCreate", D.ResourceCreate as Schema.Schema<unknown, unknown>, from(chars, 8), (mimeType) => ({
      name: "r",
      uri: "https://example.com/r",
      mimeType,
    }));
  });

  it("URLs: what the document accepts, the service accepts", () => {
    const json = jsonAccepts("ProviderCreate");
    const service = effectAccepts(D.ProviderCreate as Schema.Schema<unknown, unknown>);
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ["http", "https"] }), (baseURL) => {
        expect(json({ name: "p", baseURL }), baseURL).toBe(true);
        expect(service({ name: "p", baseURL }), baseURL).toBe(true);
      }),
      { numRuns: 100 },
    );
    for (const baseURL of [
      "ftp://example.com",
      "example.com",
      "https://user:pw@example.com",
      "https://user@x.test/",
      "https://:80",
      "",
      "https://",
    ]) {
      expect(json({ name: "p", baseURL }), baseURL).toBe(false);
      expect(service({ name: "p", baseURL }), baseURL).toBe(false);
    }
    expect(json({ name: "p", baseURL: "https://x.test", documentURL: "" })).toBe(true);
  });

  it("unknown fields are refused on both sides; references tolerate extra fields on both", () => {
    const json = jsonAccepts("ServerCreate");
    const service = effectAccepts(D.ServerCreate as Schema.Schema<unknown, unknown>);
    expect(json({ name: "s", nmae: "typo" })).toBe(false);
    expect(service({ name: "s", nmae: "typo" })).toBe(false);
    const echo = {
      name: "s",
      providers: [{ id: "Ab3dE5gH9jK", name: "echoed", tools: [{ id: "Ab3dE5gH9jK", x: 1 }] }],
    };
    expect(json(echo)).toBe(true);
    expect(service(echo)).toBe(true);
  });
});
