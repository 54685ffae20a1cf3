import * as I from "@mcpsm/domain/openapi-import";
import { dryRun, freshServicesPerTest, services } from "./support/fresh-services.js";
import { Storage } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { actor, importBody, refused, run, fromUrl, servedAt } from "./support/services.js";
import { compiles, doc30, toolNamed } from "./support/mapping-documents.js";

// The mapping rules of docs/api-rules.md §15 on small hand-made descriptions, one rule at a time.

freshServicesPerTest();

describe("provider fields", () => {
  it("come from info and the first server (variables at their defaults); overrides win", async () => {
    const read = await dryRun(doc30({ "/a": { get: { operationId: "getA" } } }));
    expect(read.created).toBe(false);
    expect(read.result.provider).toMatchObject({
      name: "Example API",
      description: "An example.",
      baseURL: "https://eu.example.com/v1",
      secretPrefix: "EU_EXAMPLE_COM",
      version: 1,
    });
    expect(read.result.provider.id).toBeUndefined();
    expect(read.result.provider.tools[0]?.id).toBeUndefined();
    const overridden = await dryRun(doc30({ "/a": { get: {} } }), {
      name: "Mine",
      baseURL: "https://api.mine.test",
      visibilityType: "PUBLIC",
      id: "ignoredOutputField",
    });
    expect(overridden.result.provider).toMatchObject({
      name: "Mine",
      baseURL: "https://api.mine.test",
      secretPrefix: "API_MINE_TEST",
      visibilityType: "PUBLIC",
    });
  });

  it("a description fetched from a URL documents the provider there, unless provider.documentURL is given", async () => {
    const document = doc30({ "/a": { get: {} } });
    const at = "https://specs.example.com/api.yaml";
    const fetched = (provider?: Record<string, unknown>) =>
      run(
        services,
        servedAt(
          at,
          document,
          I.importProvider(actor(), fromUrl(importBody(document, { dryRun: true, provider }), at)),
        ),
      );
    expect((await fetched()).result.provider.documentURL).toBe(at);
    expect((await fetched({ documentURL: "" })).result.provider.documentURL).toBe("");
    expect((await fetched({ documentURL: "https://docs.example.com" })).result.provider.documentURL).toBe(
      "https://docs.example.com",
    );
    expect((await dryRun(document)).result.provider.documentURL).toBe("");
  });

  it("a relative server needs provider.baseURL, and the problem names import.provider.baseURL", async () => {
    const error = await refused(
      services,
      I.importProvider(actor(), importBody({ ...doc30({ "/a": { get: {} } }), servers: [{ url: "/api" }] })),
    );
    expect(error).toMatchObject({
      _tag: "InvalidArgument",
      errors: [{ path: "import.provider.baseURL", message: expect.stringContaining("'/api'") }],
    });
  });
});

describe("operations to tools", () => {
  it("merges path-level parameters, resolves refs to parameters, bodies and schemas, keeps allOf/oneOf/anyOf", async () => {
    const document = doc30(
      {
        "/stores/{storeId}/pets/{petId}": {
          parameters: [
            { $ref: "#/components/parameters/StoreId" },
            { name: "petId", in: "path", required: true, schema: { type: "string" } },
            { name: "verbose", in: "query", schema: { type: "boolean" } },
          ],
          put: {
            operationId: "replacePet",
            summary: "Replace a pet",
            description: "Replaces the pet entirely.",
            parameters: [{ name: "petId", in: "path", required: true, schema: { type: "integer" } }],
            requestBody: { $ref: "#/components/requestBodies/PetBody" },
          },
        },
      },
      {
        components: {
          parameters: {
            StoreId: {
              name: "storeId",
              in: "path",
              required: true,
              description: "the store",
              schema: { type: "string" },
            },
          },
          requestBodies: {
            PetBody: {
              required: true,
              content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } },
            },
          },
          schemas: {
            Pet: {
              allOf: [
                { $ref: "#/components/schemas/Named" },
                { type: "object", properties: { kind: { $ref: "#/components/schemas/Kind" } } },
              ],
            },
            Named: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
            Kind: {
              oneOf: [{ type: "string", enum: ["cat", "dog"] }, { anyOf: [{ type: "integer" }, { type: "null" }] }],
            },
          },
        },
      },
    );
    const result = await dryRun(document);
    const tool = toolNamed(result, "replacePet");
    expect(tool).toMatchObject({ method: "PUT", path: "/stores/{storeId}/pets/{petId}", title: "Replace a pet" });
    expect(tool.description).toBe(
      "Replace a pet\n\nReplaces the pet entirely.\n\nOpenAPI operation replacePet (PUT /stores/{storeId}/pets/{petId})",
    );
    expect(tool.pathArgsJSONSchema).toEqual({
      type: "object",
      properties: { storeId: { type: "string", description: "the store" }, petId: { type: "integer" } },
      required: ["storeId", "petId"],
    });
    expect(tool.queryArgsJSONSchema).toEqual({ type: "object", properties: { verbose: { type: "boolean" } } });
    expect(tool.reqBodyJSONSchema).toEqual({
      allOf: [
        { type: "object", required: ["name"], properties: { name: { type: "string" } } },
        {
          type: "object",
          properties: {
            kind: {
              oneOf: [{ type: "string", enum: ["cat", "dog"] }, { anyOf: [{ type: "integer" }, { type: "null" }] }],
            },
          },
        },
      ],
    });
  });

  it("keeps the success answer's JSON schema on the tool (its MCP outputSchema), on the wire too", async () => {
    const pet = { type: "object", required: ["name"], properties: { name: { type: "string" } } };
    const document = doc30(
      {
        "/pets/{id}": {
          get: {
            operationId: "getPet",
            responses: {
              "404": { description: "none", content: { "application/json": { schema: { type: "string" } } } },
              "200": {
                description: "the pet",
                content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } },
              },
            },
          },
        },
        "/pets": {
          get: {
            operationId: "listPets",
            responses: {
              "2XX": {
                description: "pets",
                content: {
                  "text/plain": { schema: { type: "string" } },
                  "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Pet" } } },
                },
              },
            },
          },
          delete: { operationId: "clearPets", responses: { "204": { description: "gone" } } },
          post: {
            operationId: "addPet",
            responses: {
              "201": {
                description: "added",
                content: { "application/json": { schema: { type: "object", properties: { n: { minimum: "x" } } } } },
              },
            },
          },
        },
      },
      { components: { schemas: { Pet: pet } } },
    );
    const result = await run(services, I.importProvider(actor(), importBody(document)));
    const stored = (name: string) =>
      run(
        services,
        Effect.flatMap(Storage, (storage) => storage.read((tx) => tx.findTool(toolNamed(result, name).id as string))),
      );
    expect((await stored("getPet"))?.respBodyJSONSchema).toEqual(pet);
    expect((await stored("listPets"))?.respBodyJSONSchema).toEqual({ type: "array", items: pet });
    expect((await stored("clearPets"))?.respBodyJSONSchema).toBeNull();
    expect(toolNamed(result, "getPet")).toHaveProperty("respBodyJSONSchema", pet);
    // An answer schema that is no valid JSON Schema is left out, with a warning.
    expect((await stored("addPet"))?.respBodyJSONSchema).toBeNull();
    expect(result.result.report.warnings).toContainEqual({
      path: expect.stringContaining("responses"),
      message: expect.stringContaining("the tool declares no outputSchema"),
    });
  });

  it("keeps circular schemas finite: a recursive schema is a $defs entry behind a local $ref", async () => {
    const document = doc30(
      {
        "/nodes": {
          post: {
            operationId: "createNode",
            requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } } },
          },
        },
      },
      {
        components: {
          schemas: {
            Node: {
              type: "object",
              properties: {
                name: { type: "string" },
                children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
                parent: { $ref: "#/components/schemas/Parent" },
              },
            },
            Parent: { type: "object", properties: { node: { $ref: "#/components/schemas/Node" } } },
          },
        },
      },
    );
    const body = toolNamed(await dryRun(document), "createNode").reqBodyJSONSchema;
    const node = {
      type: "object",
      properties: {
        name: { type: "string" },
        children: { type: "array", items: { $ref: "#/$defs/Node" } },
        parent: { $ref: "#/$defs/Parent" },
      },
    };
    expect(body).toEqual({
      ...node,
      $defs: { Node: node, Parent: { type: "object", properties: { node: { $ref: "#/$defs/Node" } } } },
    });
    compiles(body);
  });

  it("rewrites OpenAPI 3.0's schema dialect into JSON Schema 2020-12", async () => {
    const document = doc30({
      "/items": {
        get: {
          operationId: "listItems",
          parameters: [
            {
              name: "min",
              in: "query",
              schema: { type: "number", minimum: 0, exclusiveMinimum: true, example: 3, "x-extra": 1 },
            },
            { name: "tag", in: "query", schema: { type: "string", nullable: true, enum: ["a", "b"] } },
          ],
        },
      },
    });
    const query = toolNamed(await dryRun(document), "listItems").queryArgsJSONSchema;
    expect(query).toEqual({
      type: "object",
      properties: {
        min: { type: "number", exclusiveMinimum: 0 },
        tag: { type: ["string", "null"], enum: ["a", "b", null] },
      },
    });
  });
});
