import { isId } from "@mcpsm/domain/schemas";
import {
  PromptRow,
  ProviderRow,
  ResourceRow,
  ServerRow,
  ServerTokenRow,
  ToolRow,
  VariableRow,
} from "@mcpsm/domain/storage";
import { Schema } from "effect";
import { describe, expect, it } from "vitest";
import { id, prompt, provider, resource, scribble, server, serverToken, tool, variable } from "../src/fixtures.js";

// The suite is only as good as its rows: they must be rows the domain could store.
describe("contract fixtures", () => {
  it("every factory makes a row of the domain's row schema, with a domain id", () => {
    const p = provider(1);
    const rows: ReadonlyArray<readonly [Schema.Schema<unknown>, { readonly id: string }]> = [
      [ProviderRow as Schema.Schema<unknown>, p],
      [ToolRow as Schema.Schema<unknown>, tool(1, p.id)],
      [PromptRow as Schema.Schema<unknown>, prompt(1, p.id)],
      [ResourceRow as Schema.Schema<unknown>, resource(1, p.id)],
      [VariableRow as Schema.Schema<unknown>, variable(1)],
      [
        ServerRow as Schema.Schema<unknown>,
        server(1, { providers: [{ providerId: p.id, toolIds: [tool(1, p.id).id] }] }),
      ],
      [ServerTokenRow as Schema.Schema<unknown>, serverToken(1, server(1).id)],
    ];
    for (const [schema, row] of rows) {
      expect(Schema.is(schema)(row)).toBe(true);
      expect(isId(row.id)).toBe(true);
    }
  });

  it("id pads to the domain's 11 characters", () => {
    expect(id("tool", 42)).toBe("tool0000042");
  });

  it("scribble changes every nested field of a row", () => {
    const row = tool(1, "prov0000001");
    const before = structuredClone(row);
    scribble(row);
    expect(row.name).not.toBe(before.name);
    expect(row.createdAt.getTime()).not.toBe(before.createdAt.getTime());
    expect(row.headers[0]?.value).not.toBe(before.headers[0]?.value);
    expect(row.oauth2Scopes).toHaveLength(before.oauth2Scopes.length + 1);
    expect(row.pathArgsJSONSchema?.required).not.toEqual(before.pathArgsJSONSchema?.required);
  });
});
