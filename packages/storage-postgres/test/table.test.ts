import { ProviderRow, ToolRow } from "@mcpsm/domain";
import { MikroORM } from "@mikro-orm/postgresql";
import { Schema } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENTITIES, ProviderEntity, ToolEntity } from "../src/schema/entities.js";
import { describeTable, insertRow, updateRow, updateRowIfVersion } from "../src/table/table.js";
import { describeTables } from "../src/table/tables.js";

// The adapter's statements are derived from the entity metadata and the domain's row schemas. These tests
// pin what is derived, and that a disagreement between the two stops the adapter instead of reading a
// field as undefined. MikroORM discovers the mapping without connecting.

let orm: MikroORM;
beforeAll(async () => {
  orm = await MikroORM.init({ clientUrl: "postgres://nobody@127.0.0.1:1/none", entities: [...ENTITIES] });
});
afterAll(() => orm.close(true));

const toolMeta = () => orm.getMetadata().get(ToolEntity);

describe("tables derived from the mapping", () => {
  it("every record table pairs with its row schema", () => {
    const tables = describeTables(orm.getMetadata());
    expect(tables.tools.columns.map((c) => c.name)).toEqual([
      "id",
      "provider_id",
      "created_at",
      "updated_at",
      "method",
      "path",
      "name",
      "title",
      "description",
      "path_args_json_schema",
      "query_args_json_schema",
      "req_body_json_schema",
      "headers",
      "oauth2_scopes",
    ]);
    expect(tables.servers.columns.map((c) => c.field)).not.toContain("providers");
  });

  it("an insert writes every column; an update sets every column but the key and the kept ones", () => {
    const tools = describeTable(toolMeta(), ToolRow);
    expect(insertRow(tools).sql).toBe(
      "insert into tools (id, provider_id, created_at, updated_at, method, path, name, title, description, " +
        "path_args_json_schema, query_args_json_schema, req_body_json_schema, headers, oauth2_scopes) values " +
        "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12::jsonb, $13::jsonb, $14::jsonb)",
    );
    expect(updateRow(tools, ["providerId", "createdAt"]).sql).toBe(
      "update tools set updated_at = $2, method = $3, path = $4, name = $5, title = $6, description = $7, " +
        "path_args_json_schema = $8::jsonb, query_args_json_schema = $9::jsonb, req_body_json_schema = $10::jsonb, " +
        "headers = $11::jsonb, oauth2_scopes = $12::jsonb where id = $1",
    );
    const providers = describeTable(orm.getMetadata().get(ProviderEntity), ProviderRow);
    const cas = updateRowIfVersion(providers, ["tenant", "createdAt", "secretPrefix"]);
    expect(cas.sql).toMatch(/ where id = \$1 and version = \$12 returning id$/);
  });

  it("parameters come from the row's fields: timestamps as ISO text, JSON documents as JSON text", () => {
    const tools = describeTable(toolMeta(), ToolRow);
    const at = new Date("2026-01-02T03:04:05.678Z");
    const params = insertRow(tools).params({
      id: "t1",
      providerId: "p1",
      createdAt: at,
      updatedAt: at,
      method: "GET",
      path: "/x",
      name: "x",
      title: "",
      description: "",
      pathArgsJSONSchema: null,
      queryArgsJSONSchema: { type: "object" },
      reqBodyJSONSchema: null,
      headers: [{ key: "a", value: "b" }],
      oauth2Scopes: [],
    });
    expect(params).toEqual([
      "t1",
      "p1",
      "2026-01-02T03:04:05.678Z",
      "2026-01-02T03:04:05.678Z",
      "GET",
      "/x",
      "x",
      "",
      "",
      null,
      '{"type":"object"}',
      null,
      '[{"key":"a","value":"b"}]',
      "[]",
    ]);
  });

  it("a row field without a column stops the adapter (it would read as undefined)", () => {
    const withExtra = Schema.Struct({ ...ToolRow.fields, deprecated: Schema.Boolean });
    expect(() => describeTable(toolMeta(), withExtra)).toThrow("the row field 'deprecated' has no column in tools");
  });

  it("a column without a row field stops the adapter (it would never be written)", () => {
    const { title: _title, ...fields } = ToolRow.fields;
    expect(() => describeTable(toolMeta(), Schema.Struct(fields))).toThrow(
      "tools.title stores 'title', which the row schema does not have",
    );
  });

  it("a timestamp column must store a Date field", () => {
    const wrong = Schema.Struct({ ...ToolRow.fields, createdAt: Schema.String });
    expect(() => describeTable(toolMeta(), wrong)).toThrow("tools.created_at is a timestamp column");
  });

  it("rows are decoded by the domain's row schema: epoch ms become Dates, a row that does not fit is refused", () => {
    const tools = describeTable(toolMeta(), ToolRow);
    const json = {
      id: "t1",
      providerId: "p1",
      createdAt: 1767323045678,
      updatedAt: 1767323045678,
      method: "GET",
      path: "/x",
      name: "x",
      title: "",
      description: "",
      pathArgsJSONSchema: null,
      queryArgsJSONSchema: null,
      reqBodyJSONSchema: null,
      headers: [],
      oauth2Scopes: ["read"],
    };
    const row = tools.decode(json);
    expect(row.createdAt).toEqual(new Date(1767323045678));
    expect(row.oauth2Scopes).toEqual(["read"]);
    expect(() => tools.decode({ ...json, method: "FETCH" })).toThrow();
    expect(() => tools.decode({ ...json, headers: undefined })).toThrow();
  });
});
