import type * as E from "@mcpsm/domain/errors";
import * as I from "@mcpsm/domain/openapi-import";
import { dryRun, freshServicesPerTest, services } from "./support/fresh-services.js";
import { describe, expect, it } from "vitest";
import { actor, importBody, refused, run, resyncBody, fromUrl, servedAt } from "./support/services.js";
import { doc, toolAt } from "./support/fidelity-documents.js";

// Import fidelity (docs/api-rules.md §15a), the mapping half: compact schemas with $defs, fixed query pairs
// and fragments in paths, unsafe patterns, descriptions without a server, re-sync of the provider's own
// fields, titles and Markdown descriptions.

freshServicesPerTest();

describe("3.1 documents that mix in other dialects (OpenAI's)", () => {
  it("drop $recursiveAnchor and read a boolean exclusiveMinimum the 3.0 way", async () => {
    const document = {
      ...doc({
        "/tunes": {
          post: {
            operationId: "createTune",
            requestBody: {
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    $recursiveAnchor: true,
                    properties: { rate: { type: "number", minimum: 0, exclusiveMinimum: true } },
                  },
                },
              },
            },
          },
        },
      }),
      openapi: "3.1.0",
    };
    const result = await dryRun(document);
    expect(result.result.report.skipped).toEqual([]);
    expect(toolAt(result, "POST", "/tunes").reqBodyJSONSchema).toEqual({
      type: "object",
      properties: { rate: { type: "number", exclusiveMinimum: 0 } },
    });
  });
});

describe("patterns the safe engine refuses", () => {
  it("are dropped with a warning naming their JSON path; the operation stays", async () => {
    const document = doc({
      "/users/{name}": {
        post: {
          operationId: "createUser",
          parameters: [
            { name: "name", in: "path", required: true, schema: { type: "string", pattern: "^(?!admin).+$" } },
          ],
          requestBody: {
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: {
                    code: { type: "string", pattern: "^(a)\\1$" },
                    ok: { type: "string", pattern: "^[a-z]+$" },
                  },
                },
              },
            },
          },
        },
      },
    });
    const result = await dryRun(document);
    expect(result.result.report.skipped).toEqual([]);
    const tool = toolAt(result, "POST", "/users/{name}");
    expect(tool.pathArgsJSONSchema).toEqual({
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
    });
    expect(tool.reqBodyJSONSchema).toEqual({
      type: "object",
      properties: { code: { type: "string" }, ok: { type: "string", pattern: "^[a-z]+$" } },
    });
    const messages = result.result.report.warnings.map((w) => w.message);
    expect(messages).toContainEqual(expect.stringMatching(/^tool\.pathArgsJSONSchema\.properties\.name\.pattern: /));
    expect(messages).toContainEqual(expect.stringMatching(/^tool\.reqBodyJSONSchema\.properties\.code\.pattern: /));
  });
});

describe("descriptions without an absolute server", () => {
  const k8s = {
    swagger: "2.0",
    info: { title: "Kubernetes", version: "v1" },
    paths: { "/api/": { get: { operationId: "getCoreAPIVersions" } } },
  };
  const relative = doc({ "/a": { get: { operationId: "getA" } } }, { servers: [{ url: "/" }] });

  it("a dry run answers with a warning; the real import names import.provider.baseURL", async () => {
    for (const document of [k8s, relative]) {
      const preview = await dryRun(document);
      expect(preview.result.provider.baseURL).not.toMatch(/^https?:/);
      expect(preview.result.provider.tools).toHaveLength(1);
      expect(preview.result.report.warnings[0]).toEqual({
        path: "import.document.servers",
        message: expect.stringContaining("import.provider.baseURL"),
      });
      const error = (await refused(services, I.importProvider(actor(), importBody(document)))) as E.InvalidArgument;
      expect(error.errors).toEqual([
        { path: "import.provider.baseURL", message: expect.stringContaining("is required") },
      ]);
      const given = await run(
        services,
        I.importProvider(actor(), importBody(document, { provider: { baseURL: "https://k8s.example.com" } })),
      );
      expect(given.result.provider.baseURL).toBe("https://k8s.example.com");
    }
  });

  it("a relative server resolves against the URL the description was fetched from", async () => {
    const document = doc({ "/a": { get: { operationId: "getA" } } }, { servers: [{ url: "/api/v1" }] });
    const at = "https://casdoor.example.com/swagger.json";
    const result = await run(
      services,
      servedAt(at, document, I.importProvider(actor(), fromUrl(importBody(document), at))),
    );
    expect(result.result.provider.baseURL).toBe("https://casdoor.example.com/api/v1");
  });
});

describe("re-sync takes the provider's own fields from the document", () => {
  const versioned = (description: string, tokenUrl: string) =>
    doc(
      { "/a": { get: { operationId: "getA" } } },
      {
        info: { title: "Example API", version: "1", description },
        components: {
          securitySchemes: {
            oauth: {
              type: "oauth2",
              flows: { authorizationCode: { authorizationUrl: "https://id.example.com/auth", tokenUrl, scopes: {} } },
            },
          },
        },
      },
    );

  it("description, documentURL and oauth2Config URLs, unless the request overrides them", async () => {
    const first = await run(
      services,
      I.importProvider(
        actor(),
        importBody(versioned("Version one.", "https://id.example.com/token"), {
          provider: { oauth2Config: { clientID: "client-1" } },
        }),
      ),
    );
    const id = first.result.provider.id!;
    const second = await run(
      services,
      servedAt(
        "https://docs.example.com/api.json",
        versioned("Version two.", "https://id.example.com/v2/token"),
        I.resyncProvider(actor(), fromUrl(resyncBody(id, {}), "https://docs.example.com/api.json")),
      ),
    );
    expect(second.provider).toMatchObject({
      description: "Version two.",
      documentURL: "https://docs.example.com/api.json",
      oauth2Config: { clientID: "client-1", tokenURL: "https://id.example.com/v2/token" },
      version: first.result.provider.version + 1,
    });
    const third = await run(
      services,
      I.resyncProvider(
        actor(),
        resyncBody(id, versioned("Version three.", "https://id.example.com/v2/token"), {
          provider: { description: "Kept by hand", documentURL: "https://mine.example.com" },
        }),
      ),
    );
    expect(third.provider).toMatchObject({ description: "Kept by hand", documentURL: "https://mine.example.com" });
  });
});

describe("titles and descriptions", () => {
  it("a title always (the summary, else a sentence from method and path); HTML becomes Markdown", async () => {
    const document = doc({
      "/v1/customers/{customer}/sources": {
        post: {
          operationId: "PostCustomerSources",
          description: '<p>Creates a <a href="https://stripe.com/docs">source</a> for <code>customer</code>.</p>',
        },
      },
      "/pets": { get: { operationId: "listPets", summary: "List pets", description: "Uses *Markdown* <3 already." } },
    });
    const result = await dryRun(document);
    const stripe = toolAt(result, "POST", "/v1/customers/{customer}/sources");
    expect(stripe.title).toBe("Create v 1 customers sources");
    expect(stripe.description).toBe(
      "Creates a [source](https://stripe.com/docs) for `customer`.\n\nOpenAPI operation PostCustomerSources (POST /v1/customers/{customer}/sources)",
    );
    expect(toolAt(result, "GET", "/pets")).toMatchObject({
      title: "List pets",
      description: "List pets\n\nUses *Markdown* <3 already.\n\nOpenAPI operation listPets (GET /pets)",
    });
  });
});
