import type { ProviderRow, ToolRow } from "@mcpsm/domain/storage";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { argumentProblems, toolEntry } from "../src/index.js";

// Tool schemas with their own `$defs` and local `$ref`s (docs/api-rules.md §15a, what an OpenAPI import
// writes): arguments are checked against each part alone, and tools/list nests the parts with their
// references rebased, so the listed inputSchema is a schema a client can compile.

const address = { type: "object", required: ["city"], properties: { city: { type: "string" } } };
const body = {
  type: "object",
  properties: { billing: { $ref: "#/$defs/Address" }, shipping: { $ref: "#/$defs/Address" } },
  $defs: { Address: address },
};

const tool: ToolRow = {
  id: "tool-defs",
  providerId: "p",
  createdAt: new Date(0),
  updatedAt: new Date(0),
  method: "POST",
  path: "/orders",
  name: "createOrder",
  title: "",
  description: "Create an order",
  pathArgsJSONSchema: null,
  queryArgsJSONSchema: null,
  reqBodyJSONSchema: body,
  reqContentType: "application/json",
  reqBodyEncoding: {},
  outputSchemaMode: "EXACT",
  responseFilter: null,
  respBodyJSONSchema: { type: "array", items: { $ref: "#/$defs/Address" }, $defs: { Address: address } },
  headers: [],
  oauth2Scopes: [],
  imported: true,
  operationPath: "/orders",
  longRunning: false,
};
const provider = { name: "Shop", iconURL: "" } as ProviderRow;

describe("tool schemas with $defs", () => {
  it("validate arguments through their local references", () => {
    expect(argumentProblems(tool, { bodyArgs: { billing: { city: "Oslo" } } })).toEqual([]);
    expect(argumentProblems(tool, { bodyArgs: { shipping: { town: "Oslo" } } })).toEqual([
      "bodyArgs.shipping: must have required property 'city'",
    ]);
  });

  it("list an inputSchema and outputSchema whose references resolve where the parts sit", () => {
    const entry = toolEntry(tool, provider);
    const ajv = new Ajv2020({ strict: false });
    const input = ajv.compile(entry.inputSchema);
    expect(input({ bodyArgs: { billing: { city: "Oslo" } } })).toBe(true);
    expect(input({ bodyArgs: { billing: { city: 7 } } })).toBe(false);
    const output = ajv.compile(entry.outputSchema as object);
    expect(output({ result: [{ city: "Oslo" }] })).toBe(true);
    expect(output({ result: [{}] })).toBe(false);
  });

  it("list the lenient outputSchema with its references resolving too", () => {
    const entry = toolEntry({ ...tool, outputSchemaMode: "LENIENT" }, provider);
    const output = new Ajv2020({ strict: false }).compile(entry.outputSchema as object);
    expect(output({ result: [{ city: "Oslo" }] })).toBe(true);
    expect(output({ result: [{}] })).toBe(true);
    expect(output({ result: [{ city: 7 }] })).toBe(false);
  });
});
