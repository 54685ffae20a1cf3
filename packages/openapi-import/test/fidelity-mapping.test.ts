import * as I from "@mcpsm/domain/openapi-import";
import { dryRun, freshServicesPerTest, services } from "./support/fresh-services.js";
import { describe, expect, it } from "vitest";
import { actor, importBody, run, resyncBody } from "./support/services.js";
import { doc, doubling, toolAt, validator } from "./support/fidelity-documents.js";

// Import fidelity (docs/api-rules.md §15a), the mapping half: compact schemas with $defs, fixed query pairs
// and fragments in paths, unsafe patterns, descriptions without a server, re-sync of the provider's own
// fields, titles and Markdown descriptions.

freshServicesPerTest();

describe("shared schemas stay shared", () => {
  it("a schema used twice is one $defs entry behind local $refs; one used once is inlined", async () => {
    const document = doc(
      {
        "/orders": {
          post: {
            operationId: "createOrder",
            requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } } },
            responses: {
              "201": { content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } } },
            },
          },
        },
      },
      {
        components: {
          schemas: {
            Address: { type: "object", properties: { city: { type: "string" } } },
            Note: { type: "string" },
            Order: {
              type: "object",
              required: ["billing"],
              properties: {
                billing: { $ref: "#/components/schemas/Address" },
                shipping: { $ref: "#/components/schemas/Address" },
                note: { $ref: "#/components/schemas/Note" },
              },
            },
          },
        },
      },
    );
    const result = await dryRun(document);
    const tool = toolAt(result, "POST", "/orders");
    expect(tool.reqBodyJSONSchema).toEqual({
      type: "object",
      required: ["billing"],
      properties: {
        billing: { $ref: "#/$defs/Address" },
        shipping: { $ref: "#/$defs/Address" },
        note: { type: "string" },
      },
      $defs: { Address: { type: "object", properties: { city: { type: "string" } } } },
    });
    const validate = validator(tool.reqBodyJSONSchema);
    expect(validate({ billing: { city: "Paris" } })).toBe(true);
    expect(validate({ billing: { city: 7 } })).toBe(false);
    expect(result.result.report.skipped).toEqual([]);
  });

  it("a graph that inlining would blow up stays within 64 KiB: no operation is skipped for size", async () => {
    const document = doc(
      {
        "/trees": {
          post: {
            operationId: "plantTree",
            requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/L20" } } } },
          },
        },
      },
      { components: { schemas: doubling(20) } },
    );
    const result = await dryRun(document);
    expect(result.result.report.skipped).toEqual([]);
    const body = toolAt(result, "POST", "/trees").reqBodyJSONSchema;
    expect(Object.keys(body.$defs as object)).toHaveLength(20);
    expect(JSON.stringify(body).length).toBeLessThan(64 * 1024);
    expect(validator(body)({ left: { left: { leaf: "a" } } })).toBe(true);
  });

  it("parameters' shared schemas gather in the parameter object's own $defs", async () => {
    const document = doc(
      {
        "/items": {
          get: {
            operationId: "listItems",
            parameters: [
              { name: "from", in: "query", schema: { $ref: "#/components/schemas/Day" } },
              { name: "to", in: "query", schema: { $ref: "#/components/schemas/Day" } },
            ],
          },
        },
      },
      { components: { schemas: { Day: { type: "string", format: "date" }, Tree: doubling(0).L0 } } },
    );
    const query = toolAt(await dryRun(document), "GET", "/items").queryArgsJSONSchema;
    expect(query).toEqual({
      type: "object",
      properties: { from: { type: "string", format: "date" }, to: { type: "string", format: "date" } },
    });
  });

  it("an over-long schema shortens its descriptions before anything is dropped", async () => {
    const properties = Object.fromEntries(
      Array.from({ length: 80 }, (_, i) => [
        `field${i}`,
        { type: "string", description: `Field ${i}. ${"More detail. ".repeat(80)}` },
      ]),
    );
    const document = doc({
      "/big": {
        post: {
          operationId: "postBig",
          requestBody: { content: { "application/json": { schema: { type: "object", properties } } } },
        },
      },
    });
    const result = await dryRun(document);
    const body = toolAt(result, "POST", "/big").reqBodyJSONSchema as { properties: Record<string, unknown> };
    expect(body.properties.field3).toEqual({ type: "string", description: "Field 3." });
    expect(result.result.report.warnings).toContainEqual({
      path: "import.document.paths['/big'].post",
      message: expect.stringContaining("tool.reqBodyJSONSchema is over 64 KiB with its annotations"),
    });
  });

  it("a request schema too large without its annotations is loosened, never skipped", async () => {
    const settings = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: "string", enum: [`value-${i}-${"v".repeat(40)}`] }]),
    );
    const document = doc({
      "/jobs": {
        post: {
          operationId: "createJob",
          requestBody: { content: { "application/json": { schema: { type: "object", properties: settings } } } },
        },
      },
    });
    const result = await dryRun(document);
    expect(result.result.report.skipped).toEqual([]);
    const body = toolAt(result, "POST", "/jobs").reqBodyJSONSchema as { properties: Record<string, unknown> };
    expect(body.properties.p7).toEqual({ type: "string" });
    expect(result.result.report.warnings).toContainEqual({
      path: "import.document.paths['/jobs'].post",
      message: expect.stringContaining("levels of nesting"),
    });
  });

  it("a response schema still too large is dropped with a warning; the operation stays", async () => {
    const huge = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [`p${i}`, { type: "string", enum: [`value-${i}-${"v".repeat(40)}`] }]),
    );
    const document = doc({
      "/report": {
        get: {
          operationId: "getReport",
          responses: { "200": { content: { "application/json": { schema: { type: "object", properties: huge } } } } },
        },
      },
    });
    const result = await dryRun(document);
    expect(result.result.report.skipped).toEqual([]);
    expect(result.result.report.added).toEqual([{ name: "getReport", method: "GET", path: "/report" }]);
    expect(result.result.report.warnings).toContainEqual({
      path: "import.document.paths['/report'].get.responses",
      message: expect.stringContaining("the tool declares no outputSchema"),
    });
  });
});

describe("paths with a fixed query or fragment", () => {
  const aws = doc({
    "/?Action=DescribeRegions&Version=2016-11-15": { get: { operationId: "DescribeRegions" } },
    "/?Action=DescribeVpcs&Version=2016-11-15": { get: { operationId: "DescribeVpcs" } },
    "/{Bucket}?uploads": {
      post: {
        operationId: "CreateMultipartUpload",
        parameters: [{ name: "Bucket", in: "path", required: true, schema: { type: "string" } }],
      },
    },
    "/#X-Amz-Target=Service.ListThings": { post: { operationId: "ListThings" } },
    "/files/{file_id}#add_shared_link": { put: { summary: "Add a shared link" } },
    "/files/{file_id}#remove_shared_link": { put: { summary: "Remove a shared link" } },
  });

  it("call the path before ? or #, send the fixed pairs as required const query arguments", async () => {
    const result = await dryRun(aws);
    expect(result.result.report.skipped).toEqual([]);
    const regions = toolAt(result, "GET", "/").queryArgsJSONSchema;
    expect(regions).toEqual({
      type: "object",
      properties: {
        Action: { type: "string", const: "DescribeRegions", description: expect.any(String) },
        Version: { type: "string", const: "2016-11-15", description: expect.any(String) },
      },
      required: ["Action", "Version"],
    });
    expect(toolAt(result, "POST", "/{Bucket}").queryArgsJSONSchema).toMatchObject({
      properties: { uploads: { const: "" } },
      required: ["uploads"],
    });
    expect(toolAt(result, "POST", "/").queryArgsJSONSchema).toEqual({});
    const names = result.result.provider.tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(result.result.provider.tools.filter((t) => t.path === "/files/{file_id}")).toHaveLength(2);
  });

  it("re-sync matches by method and the whole path as written: each variant keeps its own tool", async () => {
    const imported = await run(services, I.importProvider(actor(), importBody(aws)));
    const id = imported.result.provider.id!;
    const before = new Map(imported.result.provider.tools.map((t) => [`${t.method} ${t.name}`, t.id]));
    const { report, provider } = await run(services, I.resyncProvider(actor(), resyncBody(id, aws)));
    expect(report).toMatchObject({ added: [], removed: [], changed: [], unchanged: 6 });
    expect(new Map(provider.tools.map((t) => [`${t.method} ${t.name}`, t.id]))).toEqual(before);
    // One variant gone: only its tool goes.
    const { "/?Action=DescribeVpcs&Version=2016-11-15": _, ...paths } = aws.paths;
    const second = await run(services, I.resyncProvider(actor(), resyncBody(id, { ...aws, paths })));
    expect(second.report.removed).toEqual([{ name: "describeVpcs", method: "GET", path: "/" }]);
    expect(second.report.unchanged).toBe(5);
  });
});

describe("operations that used to be skipped for a detail", () => {
  it("two templates differing only in placeholder names are two tools, each kept apart by re-sync", async () => {
    const document = doc({
      "/v1/{run}:write": { post: { operationId: "runsWrite" } },
      "/v1/{experiment}:write": { post: { operationId: "experimentsWrite" } },
    });
    const imported = await run(services, I.importProvider(actor(), importBody(document)));
    expect(imported.result.report.skipped).toEqual([]);
    const ids = imported.result.provider.tools.map((t) => t.id);
    const again = await run(services, I.resyncProvider(actor(), resyncBody(imported.result.provider.id!, document)));
    expect(again.report).toMatchObject({ added: [], removed: [], changed: [], unchanged: 2 });
    expect(again.provider.tools.map((t) => t.id)).toEqual(ids);
  });

  it("a scope that is not an OAuth 2.0 scope token is left out with a warning", async () => {
    const document = doc(
      {
        "/accounts": {
          get: { operationId: "listAccounts", security: [{ oauth: ["accounts read", "accounts:read"] }] },
        },
      },
      {
        components: {
          securitySchemes: {
            oauth: {
              type: "oauth2",
              flows: { clientCredentials: { tokenUrl: "https://id.example.com/token", scopes: {} } },
            },
          },
        },
      },
    );
    const result = await dryRun(document);
    expect(toolAt(result, "GET", "/accounts").oauth2Scopes).toEqual(["accounts:read"]);
    expect(result.result.report.warnings).toContainEqual({
      path: "import.document.paths['/accounts'].get.security",
      message: expect.stringContaining('"accounts read"'),
    });
  });
});
