import type * as E from "@mcpsm/domain/errors";
import * as I from "@mcpsm/domain/openapi-import";
import { Storage } from "@mcpsm/domain/storage";
import * as U from "@mcpsm/domain/use-cases";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Effect } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { actor, importBody, makeServices, refused, run, type Services, fromUrl, servedAt } from "./support/services.js";

// The mapping rules of docs/api-rules.md §15 on small hand-made descriptions, one rule at a time.

let services: Services;
beforeEach(() => {
  services = makeServices();
});
afterEach(() => services.dispose());

const dryRun = (document: unknown, provider: Record<string, unknown> = {}) =>
  run(services, I.importProvider(actor(), importBody(document, { dryRun: true, provider })));

const doc30 = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  openapi: "3.0.3",
  info: { title: "Example API", version: "1", description: "An example." },
  servers: [{ url: "https://{region}.example.com/v1", variables: { region: { default: "eu" } } }],
  paths,
  ...extra,
});

const toolNamed = (result: { result: I.ImportResult }, name: string) => {
  const tool = result.result.provider.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
};

const compiles = (schema: Record<string, unknown>) => {
  const ajv = new Ajv2020({ strict: false });
  expect(() => ajv.compile(schema)).not.toThrow();
};

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

  it("names without operationId by method and path, unique and camelCase, and renames bad placeholders", async () => {
    const document = doc30({
      "/users/{user-id}": { get: {}, delete: { operationId: "x".repeat(40) } },
      "/users/{user-id}/": { get: {} },
      "/report": { get: { operationId: "get users by user id" } },
    });
    const tools = (await dryRun(document)).result.provider.tools;
    expect(tools.map((t) => t.name)).toEqual([
      "getUsersByUserId",
      "x".repeat(20),
      "getUsersByUserId2",
      "getUsersByUserId3",
    ]);
    expect(tools[0]).toMatchObject({
      path: "/users/{user_id}",
      pathArgsJSONSchema: { type: "object", properties: { user_id: { type: "string" } }, required: ["user_id"] },
    });
    expect(tools[1]?.description).toContain(`OpenAPI operation ${"x".repeat(40)} (DELETE /users/{user-id})`);
    // The same document gives the same names.
    expect((await dryRun(document)).result.provider.tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
  });

  it("skips what no tool can call, with a reason, and warns about what it leaves out", async () => {
    const document = doc30({
      "/files": {
        trace: { operationId: "traceFiles" },
        post: {
          operationId: "upload",
          requestBody: { required: true, content: { "multipart/form-data": { schema: { type: "object" } } } },
        },
        put: { operationId: "putFile", requestBody: { content: { "application/octet-stream": {} } } },
        get: {
          operationId: "listFiles",
          parameters: [
            { name: "session", in: "cookie", required: true, schema: { type: "string" } },
            { name: "X-Trace", in: "header", schema: { type: "string" } },
          ],
        },
      },
      "/forms": {
        post: {
          operationId: "postForm",
          requestBody: {
            content: {
              "application/x-www-form-urlencoded": {
                schema: { type: "object", properties: { a: { type: "string" } } },
              },
            },
          },
        },
      },
    });
    const { report, provider } = (await dryRun(document)).result;
    expect(provider.tools.map((t) => t.name)).toEqual(["upload", "putFile", "listFiles", "postForm"]);
    expect(report.skipped).toEqual([
      { method: "TRACE", path: "/files", reason: expect.stringContaining("method TRACE") },
    ]);
    expect(report.warnings).toEqual([
      {
        path: "import.document.paths['/files'].get.parameters",
        message: expect.stringMatching(/cookie parameter 'session' \(required\), header parameter 'X-Trace'$/),
      },
    ]);
    expect(report.added.length + report.skipped.length).toBe(5);
  });

  it("maps every request body to bodyArgs in its media type: form and multipart encodings, base64 binaries, text", async () => {
    const binary = { type: "string", format: "binary" };
    const document = doc30({
      "/v1/customers": {
        post: {
          operationId: "PostCustomers",
          requestBody: {
            content: {
              "application/x-www-form-urlencoded": {
                schema: {
                  type: "object",
                  properties: {
                    email: { type: "string" },
                    metadata: { type: "object", additionalProperties: { type: "string" } },
                    expand: { type: "array", items: { type: "string" } },
                  },
                },
                encoding: {
                  metadata: { explode: true, style: "deepObject" },
                  expand: { explode: true, style: "deepObject" },
                  odd: { style: "matrix", allowReserved: true },
                },
              },
            },
          },
        },
      },
      "/audio/transcriptions": {
        post: {
          operationId: "createTranscription",
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  required: ["file", "model"],
                  properties: { file: binary, model: { type: "string" }, extra: { type: "array", items: binary } },
                },
                encoding: { file: { contentType: "audio/mpeg, audio/wav" } },
              },
            },
          },
        },
      },
      "/blobs": {
        put: { operationId: "putBlob", requestBody: { content: { "application/octet-stream": { schema: binary } } } },
        post: { operationId: "postNote", requestBody: { content: { "text/plain": { schema: { type: "string" } } } } },
        patch: {
          operationId: "patchXml",
          requestBody: { content: { "application/xml": { schema: { type: "object" } } } },
        },
        delete: { operationId: "deleteImages", requestBody: { content: { "image/*": {} } } },
      },
      "/items": {
        post: {
          operationId: "postApi",
          requestBody: { content: { "application/vnd.api+json": { schema: { type: "object" } } } },
        },
      },
    });
    const { report, provider } = (await dryRun(document)).result;
    expect(report.skipped).toEqual([]);
    expect(report.warnings).toEqual([]);
    const tool = (name: string) => provider.tools.find((t) => t.name === name);
    expect(tool("postCustomers")).toMatchObject({
      reqContentType: "application/x-www-form-urlencoded",
      reqBodyEncoding: {
        metadata: { explode: true, style: "deepObject" },
        expand: { explode: true, style: "deepObject" },
      },
      reqBodyJSONSchema: { type: "object", properties: { email: { type: "string" } } },
    });
    expect(tool("createTranscription")).toMatchObject({
      reqContentType: "multipart/form-data",
      reqBodyEncoding: { file: { contentType: "audio/mpeg" } },
      reqBodyJSONSchema: {
        required: ["file", "model"],
        properties: {
          file: { type: "string", contentEncoding: "base64" },
          extra: { type: "array", items: { type: "string", contentEncoding: "base64" } },
        },
      },
    });
    const transcription = tool("createTranscription")?.reqBodyJSONSchema as
      | { properties?: Record<string, unknown> }
      | undefined;
    expect(transcription?.properties?.file).not.toHaveProperty("format");
    expect(tool("putBlob")).toMatchObject({
      reqContentType: "application/octet-stream",
      reqBodyJSONSchema: { type: "string", contentEncoding: "base64" },
    });
    expect(tool("postNote")).toMatchObject({ reqContentType: "text/plain", reqBodyJSONSchema: { type: "string" } });
    expect(tool("postNote")?.reqBodyJSONSchema).not.toHaveProperty("contentEncoding");
    expect(tool("patchXml")).toMatchObject({
      reqContentType: "application/xml",
      reqBodyJSONSchema: { type: "string" },
    });
    expect(tool("deleteImages")).toMatchObject({
      reqContentType: "application/octet-stream",
      reqBodyJSONSchema: { type: "string", contentEncoding: "base64" },
    });
    expect(tool("postApi")).toMatchObject({ reqContentType: "application/vnd.api+json", reqBodyEncoding: {} });
  });

  it("maps OAuth 2.0 flows to oauth2Config and scopes, API-key headers to a variable reference", async () => {
    const document = doc30(
      {
        "/things": {
          get: { operationId: "listThings", security: [{ oauth: ["things:read"] }] },
          post: { operationId: "createThing", security: [{ oauth: ["things:write", "things:read"] }] },
          delete: { operationId: "deleteThings", security: [{ key: [] }] },
        },
        "/public": { get: { operationId: "getPublic", security: [] } },
      },
      {
        security: [{ oauth: [] }],
        components: {
          securitySchemes: {
            oauth: {
              type: "oauth2",
              flows: {
                implicit: { authorizationUrl: "https://auth.example.com/implicit", scopes: {} },
                authorizationCode: {
                  authorizationUrl: "/oauth/authorize",
                  tokenUrl: "https://auth.example.com/token",
                  scopes: {},
                },
              },
            },
            key: { type: "apiKey", in: "header", name: "X-Api-Key" },
          },
        },
      },
    );
    const { provider } = (await dryRun(document, { oauth2Config: { clientID: "my-client", clientSecret: "s3cret" } }))
      .result;
    expect(provider.oauth2Config).toEqual({
      clientID: "my-client",
      authURL: "https://eu.example.com/oauth/authorize",
      tokenURL: "https://auth.example.com/token",
    });
    expect(provider.tools.map((t) => [t.name, t.oauth2Scopes, t.headers])).toEqual([
      ["listThings", ["things:read"], []],
      ["createThing", ["things:write", "things:read"], []],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference
      ["deleteThings", [], [{ key: "X-Api-Key", value: "${EU_EXAMPLE_COM_API_KEY}" }]],
      ["getPublic", [], []],
    ]);
    const clientCredentials = await dryRun(
      doc30(
        { "/a": { get: { security: [{ cc: ["a"] }] } } },
        {
          components: {
            securitySchemes: {
              cc: {
                type: "oauth2",
                flows: { clientCredentials: { tokenUrl: "https://auth.example.com/t", scopes: {} } },
              },
            },
          },
        },
      ),
    );
    expect(clientCredentials.result.provider.oauth2Config).toEqual({
      clientID: "",
      authURL: "",
      tokenURL: "https://auth.example.com/t",
    });
  });

  it("converts Swagger 2.0 (YAML) and warns about remote refs without fetching them", async () => {
    const swagger = stringify({
      swagger: "2.0",
      info: { title: "Old API", version: "1" },
      host: "old.example.com",
      basePath: "/v2",
      schemes: ["https"],
      paths: {
        "/pets": {
          post: {
            operationId: "addPet",
            consumes: ["application/json"],
            parameters: [{ name: "body", in: "body", required: true, schema: { $ref: "#/definitions/Pet" } }],
          },
          get: {
            operationId: "findPets",
            parameters: [{ name: "limit", in: "query", type: "integer", maximum: 100 }],
            responses: { 200: { description: "ok", schema: { $ref: "https://schemas.example.com/pets.json" } } },
          },
        },
      },
      definitions: { Pet: { type: "object", properties: { name: { type: "string" } } } },
    });
    const { provider, report } = (await dryRun(swagger)).result;
    expect(provider.baseURL).toBe("https://old.example.com/v2");
    expect(toolNamed({ result: { provider, report } }, "addPet").reqBodyJSONSchema).toEqual({
      type: "object",
      properties: { name: { type: "string" } },
    });
    expect(toolNamed({ result: { provider, report } }, "findPets").queryArgsJSONSchema).toEqual({
      type: "object",
      properties: { limit: { type: "integer", maximum: 100 } },
    });
    expect(report.warnings).toContainEqual({
      path: "import.document.paths['/pets'].get.responses['200'].schema.$ref",
      message: "remote $ref 'https://schemas.example.com/pets.json' is not fetched",
    });
  });

  it("reads OpenAPI 3.1: $ref siblings apply, type arrays stay, webhooks are warned about", async () => {
    const document = {
      openapi: "3.1.0",
      info: { title: "New API", version: "1" },
      servers: [{ url: "https://new.example.com" }],
      paths: {
        "/items": {
          post: {
            operationId: "createItem",
            requestBody: {
              content: {
                "application/merge-patch+json": {
                  schema: { $ref: "#/components/schemas/Item", description: "the item", required: ["id"] },
                },
              },
            },
          },
        },
      },
      webhooks: { itemCreated: { post: { operationId: "onItem" } } },
      components: { schemas: { Item: { type: "object", properties: { id: { type: ["string", "null"] } } } } },
    };
    const { provider, report } = (await dryRun(document)).result;
    expect(provider.tools[0]?.reqBodyJSONSchema).toEqual({
      allOf: [{ type: "object", properties: { id: { type: ["string", "null"] } } }],
      description: "the item",
      required: ["id"],
    });
    expect(report.warnings).toEqual([
      { path: "import.document.webhooks", message: expect.stringContaining("not imported") },
    ]);
  });
});

describe("bad input answers 400 with every problem located", () => {
  const problemsOf = async (document: unknown) => {
    const error = await refused(services, I.importProvider(actor(), importBody(document)));
    expect(error._tag).toBe("InvalidArgument");
    return (error as E.InvalidArgument).errors;
  };

  it("not a description", async () => {
    for (const document of [42, [1], null, "", "hello: [", { hello: "world" }, "just text"])
      expect((await problemsOf(document))[0], JSON.stringify(document)).toMatchObject({ path: "import.document" });
    expect(await problemsOf("openapi: 3.0.0\ninfo: [\n")).toEqual([
      {
        path: "import.document",
        message: expect.stringMatching(/^is not valid JSON or YAML: .* at line 3, column 1$/),
      },
    ]);
  });

  it("an unsupported version", async () => {
    expect(await problemsOf({ openapi: "4.0.0", info: {}, paths: {} })).toEqual([
      { path: "import.document.openapi", message: expect.stringContaining("unsupported version '4.0.0'") },
    ]);
    expect(await problemsOf({ swagger: "1.2" })).toEqual([
      { path: "import.document.swagger", message: expect.stringContaining("unsupported version") },
    ]);
  });

  it("every broken $ref, each at its place", async () => {
    const document = doc30({
      "/a": {
        get: { parameters: [{ $ref: "#/components/parameters/Nope" }] },
        post: { requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Gone" } } } } },
      },
    });
    expect(await problemsOf(document)).toEqual([
      {
        path: "import.document.paths['/a'].get.parameters[0].$ref",
        message: "$ref '#/components/parameters/Nope' points to nothing in the document",
      },
      {
        path: "import.document.paths['/a'].post.requestBody.content['application/json'].schema.$ref",
        message: "$ref '#/components/schemas/Gone' points to nothing in the document",
      },
    ]);
  });

  it("no operations, missing info", async () => {
    expect(await problemsOf({ openapi: "3.1.0", paths: {} })).toEqual([
      { path: "import.document.info", message: "is required and must be an object" },
    ]);
    expect(await problemsOf({ openapi: "3.1.0", info: { title: "t", version: "1" } })).toEqual([
      { path: "import.document.paths", message: "holds no operation: there is nothing to import" },
    ]);
  });

  it("a description over 10 MiB, or nested without end", async () => {
    const big = JSON.stringify(doc30({ "/a": { get: { description: "x".repeat(10 * 1024 * 1024) } } }));
    expect(await problemsOf(big)).toEqual([
      { path: "import.document", message: expect.stringContaining("at most 10 MiB") },
    ]);
    let deep: unknown = {};
    for (let i = 0; i < 1000; i++) deep = { a: deep };
    expect(await problemsOf({ ...doc30({ "/a": { get: {} } }), "x-deep": deep })).toEqual([
      { path: "import.document", message: "is nested deeper than 256 levels" },
    ]);
    const unclosed = await problemsOf(`${"[".repeat(100_000)}`);
    expect(unclosed.length).toBeGreaterThan(0);
    expect(unclosed.every((p) => p.path === "import.document")).toBe(true);
  });

  it("a YAML alias bomb is refused, not expanded", async () => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 12; i++)
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(", ")}]`,
      );
    const errors = await problemsOf(`openapi: 3.0.0\n${lines.join("\n")}\n`);
    expect(errors[0]?.message).toMatch(/alias/i);
  });
});

describe("quota, dry run and storage", () => {
  it("a description with more operations than the tool quota answers 429 naming the count; nothing is stored", async () => {
    const small = makeServices({ toolsPerProvider: 3 });
    const paths = Object.fromEntries(["/a", "/b", "/c", "/d"].map((p) => [p, { get: {} }]));
    const error = await refused(small, I.importProvider(actor(), importBody(doc30(paths))));
    expect(error).toMatchObject({
      _tag: "ResourceExhausted",
      detail: "the description maps to 4 tools; a provider may hold at most 3",
    });
    const page = await run(small, U.listProviders(actor(), {}));
    expect(page.providers).toEqual([]);
    await small.dispose();
  });

  it("a dry run stores nothing; an import stores the provider and its tools at version 1", async () => {
    const document = doc30({ "/a": { get: { operationId: "getA" } }, "/b": { post: { operationId: "postB" } } });
    await dryRun(document);
    expect((await run(services, U.listProviders(actor(), {}))).providers).toEqual([]);
    const imported = await run(services, I.importProvider(actor(), importBody(document)));
    expect(imported.created).toBe(true);
    const stored = await run(services, U.getProvider(actor(), { providerId: imported.result.provider.id! }));
    expect(stored).toEqual(imported.result.provider);
    expect(stored.version).toBe(1);
    expect(stored.tools.map((t) => t.name)).toEqual(["getA", "postB"]);
    // A second import of the same title collides like any provider create.
    const again = await refused(services, I.importProvider(actor(), importBody(document)));
    expect(again._tag).toBe("AlreadyExists");
    expect((await run(services, U.listProviders(actor(), {}))).providers).toHaveLength(1);
  });

  it("the use case is an effect: reading nothing before it runs", () => {
    expect(Effect.isEffect(I.importProvider(actor(), importBody({})))).toBe(true);
  });
});
