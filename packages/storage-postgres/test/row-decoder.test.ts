import {
  PromptRow,
  ProviderRow,
  ResourceRow,
  ServerRow,
  ServerTokenRow,
  ToolRow,
  VariableRow,
} from "@mcpsm/domain/storage";
import { prompt, provider, resource, server, serverToken, tool, variable } from "@mcpsm/storage-contract";
import { Schema } from "effect";
import { describe, expect, it } from "vitest";
import { rowDecoder } from "../src/table/row-decoder.js";

// The compiled row decoder answers what effect's own decoder of the same schema answers, for every row
// shape the adapter reads; it refuses what does not fit the structure, with effect's ParseError.

/** The row schema as the adapter reads it: Dates arrive as epoch milliseconds. */
const stored = <F extends Schema.Struct.Fields>(row: Schema.Struct<F>, dates: ReadonlyArray<string>) =>
  Schema.Struct({
    ...row.fields,
    ...Object.fromEntries(
      dates.map((field) => [
        field,
        field === "expiresAt" ? Schema.NullOr(Schema.DateFromNumber) : Schema.DateFromNumber,
      ]),
    ),
  }) as unknown as Schema.Schema<Schema.Struct.Type<F>, unknown>;

/** A row as JSON from the database: Dates as epoch milliseconds. */
const asJson = (row: object): unknown =>
  JSON.parse(JSON.stringify(row), (key, value) =>
    ["createdAt", "updatedAt", "expiresAt"].includes(key) && typeof value === "string" ? Date.parse(value) : value,
  );

const cases = [
  ["provider", stored(ProviderRow, ["createdAt", "updatedAt"]), provider(1)],
  ["provider without OAuth", stored(ProviderRow, ["createdAt", "updatedAt"]), provider(2, { oauth2Config: null })],
  ["tool", stored(ToolRow, ["createdAt", "updatedAt"]), tool(1, "prov0000001")],
  ["prompt", stored(PromptRow, ["createdAt", "updatedAt"]), prompt(1, "prov0000001")],
  ["resource", stored(ResourceRow, ["createdAt", "updatedAt"]), resource(1, "prov0000001")],
  ["variable", stored(VariableRow, ["createdAt", "updatedAt"]), variable(1)],
  [
    "server",
    stored(ServerRow, ["createdAt", "updatedAt"]),
    server(1, { providers: [{ providerId: "prov0000001", toolIds: ["tool0000001"] }], promptIds: ["prmt0000001"] }),
  ],
  ["server token", stored(ServerTokenRow, ["createdAt", "expiresAt"]), serverToken(1, "serv0000001")],
  [
    "server token that never expires",
    stored(ServerTokenRow, ["createdAt", "expiresAt"]),
    serverToken(2, "serv0000001", { expiresAt: null }),
  ],
] as const;

describe("the compiled row decoder", () => {
  for (const [name, schema, row] of cases)
    it(`decodes a ${name} row as effect's decoder does`, () => {
      const json = asJson(row);
      const generic = schema as unknown as Schema.Schema<unknown, unknown>;
      const decoded = rowDecoder(generic)(json);
      expect(decoded).toEqual(Schema.decodeUnknownSync(generic)(json));
      expect(decoded).toEqual(row);
    });

  it("refuses what does not fit the structure, with effect's message", () => {
    const decode = rowDecoder(stored(ToolRow, ["createdAt", "updatedAt"]));
    const json = asJson(tool(1, "prov0000001")) as Record<string, unknown>;
    expect(() => decode({ ...json, method: "FETCH" })).toThrow(/method/);
    expect(() => decode({ ...json, headers: [{ key: "a" }] })).toThrow(/value/);
    expect(() => decode({ ...json, createdAt: "yesterday" })).toThrow(/createdAt/);
    expect(() => decode({ ...json, oauth2Scopes: "read" })).toThrow(/oauth2Scopes/);
    expect(() => decode(null)).toThrow();
  });

  it("keeps optional fields absent when they are absent, and drops unknown fields", () => {
    const decode = rowDecoder(stored(PromptRow, ["createdAt", "updatedAt"]));
    const row = prompt(1, "prov0000001", { arguments: [{ name: "city" }] });
    const decoded = decode({ ...(asJson(row) as object), extra: 1 });
    expect(decoded.arguments).toEqual([{ name: "city" }]);
    expect("description" in (decoded.arguments[0] ?? {})).toBe(false);
    expect("extra" in decoded).toBe(false);
    expect(decoded.createdAt).toBeInstanceOf(Date);
  });
});
