import { ToolRow, VariableRow } from "@mcpsm/domain/storage";
import { tool, variable } from "@mcpsm/storage-contract";
import { MikroORM } from "@mikro-orm/postgresql";
import { Schema } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENTITIES, ToolEntity, VariableEntity } from "../src/schema/entities.js";
import { describeTable, insertRow, updateRow, updateRowIfVersion } from "../src/table/table.js";
import { describeTables } from "../src/table/tables.js";

// The adapter's statements are derived from the entity metadata and the domain's row schemas. These tests
// pin what is derived (on variables, a table of plain columns; on tools, whatever its columns are), and
// that a disagreement between the two stops the adapter instead of reading a field as undefined. MikroORM
// discovers the mapping without connecting.

let orm: MikroORM;
beforeAll(async () => {
  orm = await MikroORM.init({ clientUrl: "postgres://nobody@127.0.0.1:1/none", entities: [...ENTITIES] });
});
afterAll(() => orm.close(true));

const toolMeta = () => orm.getMetadata().get(ToolEntity);
const variables = () => describeTable(orm.getMetadata().get(VariableEntity), VariableRow);

/** A row as the database's JSON has it: Dates as epoch milliseconds. */
const asJson = (row: object): unknown =>
  JSON.parse(JSON.stringify(row), (key, value) =>
    ["createdAt", "updatedAt", "expiresAt"].includes(key) && typeof value === "string" ? Date.parse(value) : value,
  );

describe("tables derived from the mapping", () => {
  it("every record table pairs with its row schema; a table's columns are its entity's, in order", () => {
    const tables = describeTables(orm.getMetadata());
    expect(tables.tools.columns.map((c) => c.name)).toEqual(toolMeta().props.map((prop) => prop.fieldNames[0]));
    expect(tables.tools.columns.find((c) => c.name === "provider_id")?.field).toBe("providerId");
    expect(tables.servers.columns.map((c) => c.field)).not.toContain("providers");
  });

  it("an insert writes every column; an update sets every column but the key and the kept ones", () => {
    expect(insertRow(variables()).sql).toBe(
      "insert into variables (id, tenant, created_at, updated_at, type, name, value, per_caller) values ($1, $2, $3, $4, $5, $6, $7, $8)",
    );
    expect(updateRow(variables(), ["tenant", "name", "createdAt"]).sql).toBe(
      "update variables set updated_at = $2, type = $3, value = $4, per_caller = $5 where id = $1",
    );
    const tools = describeTable(toolMeta(), ToolRow);
    const insert = insertRow(tools).sql;
    for (const column of tools.columns) expect(insert).toContain(column.name);
    expect(insert).toContain("$3, $4"); // the timestamps: ISO text, no cast
    expect(insert.match(/::jsonb/g)).toHaveLength(tools.columns.filter((c) => c.kind === "jsonb").length);
    expect(tools.columns.some((c) => c.kind === "jsonb")).toBe(true);
    const update = updateRow(tools, ["providerId", "createdAt"]).sql;
    expect(update).not.toMatch(/provider_id =|created_at =|set id =/);
    expect(update.match(/ = \$/g)).toHaveLength(tools.columns.length - 3 + 1);
  });

  it("a compare-and-set update checks the version after the set values", () => {
    const providers = describeTables(orm.getMetadata()).providers;
    const cas = updateRowIfVersion(providers, ["tenant", "createdAt", "secretPrefix"]);
    const n = providers.columns.length - 3 + 1;
    expect(cas.sql).toMatch(new RegExp(` where id = \\$1 and version = \\$${n} returning id$`));
  });

  it("parameters come from the row's fields: timestamps as ISO text, JSON documents as JSON text", () => {
    const row = variable(1);
    expect(insertRow(variables()).params(row)).toEqual([
      row.id,
      row.tenant,
      row.createdAt.toISOString(),
      row.updatedAt.toISOString(),
      row.type,
      row.name,
      row.value,
      row.perCaller,
    ]);
    const tools = describeTable(toolMeta(), ToolRow);
    const t = tool(1, "prov0000001");
    const params = insertRow(tools).params(t);
    const at = (field: string) => params[tools.columns.findIndex((c) => c.field === field)];
    expect(at("headers")).toBe(JSON.stringify(t.headers));
    expect(at("queryArgsJSONSchema")).toBe(
      t.queryArgsJSONSchema === null ? null : JSON.stringify(t.queryArgsJSONSchema),
    );
    expect(at("createdAt")).toBe(t.createdAt.toISOString());
  });

  it("a row field without a column stops the adapter (it would read as undefined)", () => {
    const withExtra = Schema.Struct({ ...ToolRow.fields, notStored: Schema.Boolean });
    expect(() => describeTable(toolMeta(), withExtra)).toThrow("the row field 'notStored' has no column in tools");
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
    const row = tool(1, "prov0000001");
    const json = asJson(row) as Record<string, unknown>;
    expect(tools.decode(json)).toEqual(row);
    expect(() => tools.decode({ ...json, method: "FETCH" })).toThrow();
    expect(() => tools.decode({ ...json, headers: undefined })).toThrow();
  });
});
