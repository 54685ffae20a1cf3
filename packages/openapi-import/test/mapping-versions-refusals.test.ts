import type * as E from "@mcpsm/domain/errors";
import * as I from "@mcpsm/domain/openapi-import";
import * as U from "@mcpsm/domain/use-cases";
import { dryRun, freshServicesPerTest, services } from "./support/fresh-services.js";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { actor, importBody, makeServices, refused, run } from "./support/services.js";
import { doc30, toolNamed } from "./support/mapping-documents.js";

// The mapping rules of docs/api-rules.md §15 on small hand-made descriptions, one rule at a time.

freshServicesPerTest();

describe("operations to tools", () => {
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
