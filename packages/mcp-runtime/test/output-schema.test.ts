import { beforeAll, expect, it } from "vitest";
import type { OutputMismatch } from "../src/index.js";
import { actorOf, manage } from "./support/harness.js";
import { describeEachEra, serveWithToken, useMcpSuite } from "./support/mcp-suite.js";
import { startUpstream } from "./support/upstream.js";

// docs/api-rules.md §15a, answer schemas: a tool whose answer schema is known (`respBodyJSONSchema`) declares
// it as `outputSchema` in the shape `structuredContent` takes (an object schema as is, an array or scalar
// wrapped as `{result}`). By default (outputSchemaMode LENIENT) the declared schema is a form every real
// answer satisfies, and a 2xx is always a success — checked by the SDK client itself, which validates
// structuredContent; an answer that still does not fit is returned as a success (its text whole, an empty
// structuredContent the schema accepts), logged and counted. With
// EXACT, the schema is declared as written and an answer that does not match is a tool error saying why.

const mismatches: Array<OutputMismatch> = [];
const warnings: Array<{ fields: object; message: string }> = [];
const suite = useMcpSuite(
  startUpstream,
  { upstreamAllowedNetworks: ["127.0.0.0/8"] },
  {
    instrumentation: {
      operation: (_op, run) => run((_exchange, call) => call([])),
      outputMismatch: (r) => mismatches.push(r),
    },
    logger: { warn: (fields, message) => warnings.push({ fields, message }), error: () => undefined },
  },
);
let served: { serverId: string; token: string };

const ECHO = {
  type: "object",
  properties: { method: { type: "string" }, path: { type: "string" } },
  required: ["method", "path"],
};

/** A description that is slightly wrong about what /echo answers: required fields it lacks, a closed object, … */
const SLOPPY = {
  type: "object",
  required: ["method", "path", "missing"],
  additionalProperties: false,
  properties: {
    method: { type: "string", enum: ["PUT"] },
    path: { type: "string", pattern: "^/never$" },
    body: { $ref: "#/$defs/Body" },
  },
  $defs: {
    Body: {
      type: "object",
      required: ["id", "gone"],
      additionalProperties: false,
      properties: {
        id: { type: "string" },
        status: { type: "string", enum: ["old"] },
        count: { type: "integer", maximum: 1 },
        items: { type: "array", maxItems: 1, items: { oneOf: [{ type: "string" }, { type: "string", minLength: 1 }] } },
      },
    },
  },
};
/** What the sloppy tool sends, and so what /echo answers under `body`. */
const SLOPPY_BODY = { id: null, status: "new", count: 2.5, extra: true, items: ["a", "b"] };

beforeAll(async () => {
  const { services, upstream } = suite;
  const m = manage(services, actorOf("outputs"));
  const provider = await m.provider({ name: "Typed", baseURL: `http://localhost:${upstream.port}/api/` });
  const t = (name: string, path: string, fields: Record<string, unknown> = {}) =>
    m.tool(provider.id, { name, method: "GET", path, ...fields });
  const tools = [
    await t("matching", "/echo/m", { respBodyJSONSchema: ECHO, outputSchemaMode: "EXACT" }),
    await t("mismatching", "/echo/x", {
      respBodyJSONSchema: { type: "object", required: ["missing"], properties: { missing: { type: "string" } } },
      outputSchemaMode: "EXACT",
    }),
    await t("array", "/array", {
      respBodyJSONSchema: { type: "array", items: { type: "integer" } },
      outputSchemaMode: "EXACT",
    }),
    await t("notJson", "/text", { respBodyJSONSchema: { type: "object" }, outputSchemaMode: "EXACT" }),
    await t("untyped", "/echo/u", { respBodyJSONSchema: { properties: { method: { type: "string" } } } }),
    await t("plain", "/echo/p"),
    await t("sloppy", "/echo/s", {
      method: "POST",
      reqBodyJSONSchema: { type: "object" },
      respBodyJSONSchema: SLOPPY,
    }),
    await t("lenientArray", "/array", {
      respBodyJSONSchema: {
        type: "array",
        items: { $ref: "#/$defs/N" },
        $defs: { N: { type: "integer", minimum: 5 } },
      },
    }),
    await t("wrongType", "/echo/w", {
      respBodyJSONSchema: { type: "object", properties: { method: { type: "integer" } } },
    }),
    await t("lenientText", "/text", { respBodyJSONSchema: { type: "object" } }),
  ];
  served = await serveWithToken(m, {
    name: "Typed answers",
    providers: [{ id: provider.id, tools: tools.map((x) => ({ id: x.id })) }],
  });
});

describeEachEra(
  () => ({ url: suite.mcp.url, ...served }),
  (client) => {
    it("EXACT declares the schema as written: object schemas as is, others wrapped as {result}", async () => {
      const tools = Object.fromEntries((await client().listTools()).tools.map((tool) => [tool.name, tool]));
      expect(tools.matching?.outputSchema).toEqual(ECHO);
      expect(tools.array?.outputSchema).toEqual({
        type: "object",
        properties: { result: { type: "array", items: { type: "integer" } } },
        required: ["result"],
      });
      expect(tools.untyped?.outputSchema).toBeUndefined();
      expect(tools.plain?.outputSchema).toBeUndefined();
    });

    it("LENIENT declares a form without required, closed objects or value constraints, null allowed, $defs kept", async () => {
      const tools = Object.fromEntries((await client().listTools()).tools.map((tool) => [tool.name, tool]));
      expect(tools.sloppy?.outputSchema).toEqual({
        type: "object",
        properties: {
          method: { type: ["string", "null"] },
          path: { type: ["string", "null"] },
          body: { $ref: "#/$defs/Body" },
        },
        $defs: {
          Body: {
            type: ["object", "null"],
            properties: {
              id: { type: ["string", "null"] },
              status: { type: ["string", "null"] },
              count: { type: ["number", "null"] },
              items: {
                type: ["array", "null"],
                items: { anyOf: [{ type: ["string", "null"] }, { type: ["string", "null"] }] },
              },
            },
          },
        },
      });
      // A wrapped schema takes its $defs to the root, where its local $refs resolve.
      expect(tools.lenientArray?.outputSchema).toEqual({
        type: "object",
        properties: { result: { type: ["array", "null"], items: { $ref: "#/$defs/N" } } },
        required: ["result"],
        $defs: { N: { type: ["number", "null"] } },
      });
    });

    it("returns structuredContent matching it (the SDK client validates it)", async () => {
      await client().listTools();
      const matching = await client().callTool({ name: "matching" });
      expect(matching.isError).toBeFalsy();
      expect(matching.structuredContent).toMatchObject({ method: "GET", path: "/echo/m" });
      const array = await client().callTool({ name: "array" });
      expect(array.structuredContent).toEqual({ result: [1, 2, 3] });
    });

    it("LENIENT: an answer the description is slightly wrong about is a success the SDK client accepts", async () => {
      await client().listTools();
      const before = mismatches.length;
      const sloppy = await client().callTool({ name: "sloppy", arguments: { bodyArgs: SLOPPY_BODY } });
      expect(sloppy.isError).toBeFalsy();
      expect(sloppy.structuredContent).toMatchObject({ method: "POST", path: "/echo/s", body: SLOPPY_BODY });
      const array = await client().callTool({ name: "lenientArray" });
      expect(array.structuredContent).toEqual({ result: [1, 2, 3] });
      expect(mismatches.length).toBe(before);
    });

    it("LENIENT: an answer that fits not even the lenient form is still a success, logged without values and counted", async () => {
      const before = { mismatches: mismatches.length, warnings: warnings.length };
      // The answer is in the text; structuredContent is the empty form the schema accepts (the SDK checks it).
      await client().listTools();
      const wrong = await client().callTool({ name: "wrongType" });
      expect(wrong.isError).toBeFalsy();
      expect(JSON.stringify(wrong.content)).toContain('\\"path\\":\\"/echo/w\\"');
      expect(wrong.structuredContent).toEqual({});
      // A text answer of a tool that declared JSON: the text, and the empty structuredContent the SDK accepts.
      const text = await client().callTool({ name: "lenientText" });
      expect(text.isError).toBeFalsy();
      expect(JSON.stringify(text.content)).toContain("plain text");
      expect(text.structuredContent).toEqual({});
      expect(mismatches.slice(before.mismatches)).toEqual(["schema", "not_json"]);
      const logged = warnings.slice(before.warnings);
      expect(logged).toHaveLength(2);
      expect(JSON.stringify(logged)).not.toContain("/echo/w");
      expect(JSON.stringify(logged)).not.toContain("GET");
      expect(logged[0]?.fields).toMatchObject({ reason: "schema", problems: 1 });
    });

    it("EXACT: answers a tool error when the upstream's answer does not match, or is not JSON", async () => {
      await client().listTools();
      const mismatching = await client().callTool({ name: "mismatching" });
      expect(mismatching.isError).toBe(true);
      expect(mismatching.structuredContent).toBeUndefined();
      expect(JSON.stringify(mismatching.content)).toContain("does not match the schema");
      expect(JSON.stringify(mismatching.content)).toContain("missing");
      const notJson = await client().callTool({ name: "notJson" });
      expect(notJson.isError).toBe(true);
      expect(JSON.stringify(notJson.content)).toContain("not the JSON its description declares");
    });
  },
);
