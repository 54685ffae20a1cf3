import { dryRun, freshServicesPerTest } from "./support/fresh-services.js";
import { describe, expect, it } from "vitest";
import { doc30 } from "./support/mapping-documents.js";

// The mapping rules of docs/api-rules.md §15 on small hand-made descriptions, one rule at a time.

freshServicesPerTest();

describe("operations to tools", () => {
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
});
