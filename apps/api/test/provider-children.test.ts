import { describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import { expectCreated, expectInvalid, expectNoContent, expectProblem, expectStatus, ID } from "./support/problems.js";
import {
  byId,
  createProvider,
  createServer,
  createTool,
  fetchRecord,
  toolWrite,
  unknownId,
} from "./support/records.js";

// A provider's tools, prompts and resources: spec §4 (POST /providers/{id}/prompts, GET of one prompt) and
// the extra routes of docs/api-rules.md §9, with the rules of §6.

const world = serviceForFile({ alice: "children" });

const versionOf = async (providerId: string) =>
  (await fetchRecord(world.alice.api, `/providers/${providerId}`, "provider")).version;

describe("tools", () => {
  it("POST /providers/{id}/tools answers 201 with Location and the full tool (method upper-cased)", async () => {
    const provider = await createProvider(world.alice.api);
    const write = {
      name: "getRepo",
      title: "Get a repository",
      description: "Reads one repository.",
      method: "get",
      path: "/repos/{owner}/{repo}",
      pathArgsJSONSchema: {
        type: "object",
        properties: { owner: { type: "string" }, repo: { type: "string" } },
        required: ["owner", "repo"],
      },
      queryArgsJSONSchema: { type: "object", properties: { page: { type: "integer" } } },
      reqBodyJSONSchema: { type: "array", items: { type: "string" } },
      reqContentType: "application/json",
      reqBodyEncoding: {},
      respBodyJSONSchema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
      outputSchemaMode: "EXACT",
      responseFilter: null,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference, stored as written
      headers: [{ key: "Authorization", value: "Bearer ${API_EXAMPLE_COM_TOKEN}" }],
      oauth2Scopes: ["repo", "read:org"],
    };
    const res = await world.alice.api.post(`/providers/${provider.id}/tools`, { tool: write });
    const tool = res.body.tool;
    expectCreated(res, `/providers/${provider.id}/tools/${tool.id}`);
    expect(Object.keys(res.body)).toEqual(["tool"]);
    expect(tool.id).toMatch(ID);
    expect(tool).toEqual({ ...write, id: tool.id, providerID: provider.id, method: "GET" });
    expect(await versionOf(provider.id)).toBe(2);
  });

  it("defaults: empty title and description, {} schemas, JSON body, no answer schema, no headers or scopes", async () => {
    const provider = await createProvider(world.alice.api);
    const res = await world.alice.api.post(`/providers/${provider.id}/tools`, {
      tool: { name: "listItems", method: "DELETE", path: "/items" },
    });
    expectStatus(res, 201);
    expect(res.body.tool).toEqual({
      id: res.body.tool.id,
      providerID: provider.id,
      method: "DELETE",
      path: "/items",
      name: "listItems",
      title: "",
      description: "",
      pathArgsJSONSchema: {},
      queryArgsJSONSchema: {},
      reqBodyJSONSchema: {},
      reqContentType: "application/json",
      reqBodyEncoding: {},
      respBodyJSONSchema: null,
      outputSchemaMode: "LENIENT",
      responseFilter: null,
      headers: [],
      oauth2Scopes: [],
    });
  });

  it("body media type, encoding, answer schema and its mode: written, read back, null clears the schema", async () => {
    const provider = await createProvider(world.alice.api);
    const tool = await createTool(world.alice.api, provider.id, {
      method: "POST",
      reqContentType: "application/x-www-form-urlencoded",
      reqBodyEncoding: { metadata: { style: "deepObject", explode: true }, tags: { explode: false } },
      respBodyJSONSchema: { type: "object", properties: { id: { type: "string" } } },
    });
    expect(tool).toMatchObject({
      reqContentType: "application/x-www-form-urlencoded",
      reqBodyEncoding: { metadata: { style: "deepObject", explode: true }, tags: { explode: false } },
      respBodyJSONSchema: { type: "object", properties: { id: { type: "string" } } },
      outputSchemaMode: "LENIENT",
    });
    const path = `/providers/${provider.id}/tools/${tool.id}`;
    const exact = await world.alice.api.patch(path, { tool: { outputSchemaMode: "EXACT" } });
    expectStatus(exact, 200);
    expect(exact.body.tool).toMatchObject({ outputSchemaMode: "EXACT", reqContentType: tool.reqContentType });
    expect(exact.body.tool.respBodyJSONSchema).toEqual(tool.respBodyJSONSchema);
    const cleared = await world.alice.api.patch(path, { tool: { respBodyJSONSchema: null } });
    expectStatus(cleared, 200);
    expect(cleared.body.tool.respBodyJSONSchema).toBeNull();
    expect((await fetchRecord(world.alice.api, path, "tool")).respBodyJSONSchema).toBeNull();
    const empty = await world.alice.api.patch(path, { tool: { respBodyJSONSchema: { type: "array" } } });
    expect(empty.body.tool.respBodyJSONSchema).toEqual({ type: "array" });
    expect(
      (await world.alice.api.patch(path, { tool: { respBodyJSONSchema: {} } })).body.tool.respBodyJSONSchema,
    ).toBeNull();
  });

  it("refuses a media type that is not one, an unknown mode or style, and an invalid answer schema", async () => {
    const provider = await createProvider(world.alice.api);
    const res = await world.alice.api.post(`/providers/${provider.id}/tools`, {
      tool: {
        ...toolWrite(),
        reqContentType: "json",
        reqBodyEncoding: { a: { style: "matrix" } },
        respBodyJSONSchema: { type: "nope" },
        outputSchemaMode: "STRICT",
      },
    });
    expect(expectInvalid(res).sort()).toEqual([
      "tool.outputSchemaMode",
      "tool.reqBodyEncoding.a.style",
      "tool.reqContentType",
      "tool.respBodyJSONSchema",
    ]);
  });

  it("GET lists and reads tools; GET /providers/{id} carries them", async () => {
    const provider = await createProvider(world.alice.api);
    const a = await createTool(world.alice.api, provider.id);
    const b = await createTool(world.alice.api, provider.id);
    const list = await world.alice.api.get(`/providers/${provider.id}/tools`);
    expectStatus(list, 200);
    expect(byId(list.body.tools)).toEqual(byId([a, b]));
    const one = await world.alice.api.get(`/providers/${provider.id}/tools/${b.id}`);
    expectStatus(one, 200);
    expect(one.body).toEqual({ tool: b });
    expect(byId((await fetchRecord(world.alice.api, `/providers/${provider.id}`, "provider")).tools)).toEqual(
      byId([a, b]),
    );
  });

  it("PATCH is partial and bumps the provider's version; DELETE answers 204", async () => {
    const provider = await createProvider(world.alice.api);
    const tool = await createTool(world.alice.api, provider.id, { title: "Old", oauth2Scopes: ["a"] });
    const res = await world.alice.api.patch(`/providers/${provider.id}/tools/${tool.id}`, {
      tool: { title: "New", method: "post", headers: [{ key: "X-Api-Version", value: "2" }] },
    });
    expectStatus(res, 200);
    expect(res.body.tool).toEqual({
      ...tool,
      title: "New",
      method: "POST",
      headers: [{ key: "X-Api-Version", value: "2" }],
    });
    expect(await versionOf(provider.id)).toBe(3);
    expect(await fetchRecord(world.alice.api, `/providers/${provider.id}/tools/${tool.id}`, "tool")).toEqual(
      res.body.tool,
    );
    expectNoContent(await world.alice.api.delete(`/providers/${provider.id}/tools/${tool.id}`));
    expect(await versionOf(provider.id)).toBe(4);
    expectProblem(await world.alice.api.get(`/providers/${provider.id}/tools/${tool.id}`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.delete(`/providers/${provider.id}/tools/${tool.id}`), 404, "NOT_FOUND");
    expect((await world.alice.api.get(`/providers/${provider.id}/tools`)).body).toEqual({
      tools: [],
      matchCount: 0,
      nextToken: "",
    });
  });

  it("a tool is reached only through its own provider", async () => {
    const p1 = await createProvider(world.alice.api);
    const p2 = await createProvider(world.alice.api);
    const tool = await createTool(world.alice.api, p1.id);
    expectProblem(await world.alice.api.get(`/providers/${p2.id}/tools/${tool.id}`), 404, "NOT_FOUND");
    expectProblem(
      await world.alice.api.patch(`/providers/${p2.id}/tools/${tool.id}`, { tool: { title: "x" } }),
      404,
      "NOT_FOUND",
    );
    expectProblem(await world.alice.api.delete(`/providers/${p2.id}/tools/${tool.id}`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.get(`/providers/${unknownId()}/tools`), 404, "NOT_FOUND");
    expectProblem(
      await world.alice.api.post(`/providers/${unknownId()}/tools`, { tool: toolWrite() }),
      404,
      "NOT_FOUND",
    );
    expect(await fetchRecord(world.alice.api, `/providers/${p1.id}/tools/${tool.id}`, "tool")).toEqual(tool);
  });

  it.each([
    ["name not camelCase", { name: "Get_repo" }, "tool.name"],
    ["name starting with a digit", { name: "1tool" }, "tool.name"],
    ["name over 20 characters", { name: "a".repeat(21) }, "tool.name"],
    ["title over 64 characters", { title: "t".repeat(65) }, "tool.title"],
    ["method not HTTP", { method: "FETCH" }, "tool.method"],
    ["method CONNECT", { method: "CONNECT" }, "tool.method"],
    ["path not starting with /", { path: "items" }, "tool.path"],
    ["path with a query", { path: "/items?x=1" }, "tool.path"],
    ["path with unbalanced braces", { path: "/items/{id" }, "tool.path"],
    ["placeholder missing from pathArgsJSONSchema", { path: "/items/{id}" }, "tool.pathArgsJSONSchema"],
    [
      "placeholder declared but not required",
      { path: "/items/{id}", pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } } } },
      "tool.pathArgsJSONSchema",
    ],
    ["pathArgsJSONSchema not type object", { pathArgsJSONSchema: { type: "string" } }, "tool.pathArgsJSONSchema"],
    ["queryArgsJSONSchema not type object", { queryArgsJSONSchema: { type: "array" } }, "tool.queryArgsJSONSchema"],
    ["reqBodyJSONSchema not a JSON Schema", { reqBodyJSONSchema: { type: "banana" } }, "tool.reqBodyJSONSchema"],
    [
      "reqBodyJSONSchema over 64 KiB",
      { reqBodyJSONSchema: { description: "x".repeat(70_000) } },
      "tool.reqBodyJSONSchema",
    ],
    ["header Host", { headers: [{ key: "Host", value: "evil.example" }] }, "tool.headers[0].key"],
    ["header Content-Length", { headers: [{ key: "content-length", value: "1" }] }, "tool.headers[0].key"],
    ["header Transfer-Encoding", { headers: [{ key: "Transfer-Encoding", value: "chunked" }] }, "tool.headers[0].key"],
    ["header Connection", { headers: [{ key: "Connection", value: "close" }] }, "tool.headers[0].key"],
    ["header key not a token", { headers: [{ key: "X Bad", value: "v" }] }, "tool.headers[0].key"],
    ["header value with CR/LF", { headers: [{ key: "X-Ok", value: "a\r\nInjected: yes" }] }, "tool.headers[0].value"],
    ["unknown field", { titel: "typo" }, "tool.titel"],
    ["unknown field in a header", { headers: [{ key: "X-A", value: "b", secret: true }] }, "tool.headers[0].secret"],
  ])("%s answers 400 at %s", async (_label, fields, path) => {
    const provider = await createProvider(world.alice.api);
    const res = await world.alice.api.post(`/providers/${provider.id}/tools`, { tool: toolWrite(fields) });
    expect(expectInvalid(res)).toEqual([path]);
    expect(await versionOf(provider.id)).toBe(1);
  });

  it("name, method and path are required, reported together; a 20-character name and 64-character title are fine", async () => {
    const provider = await createProvider(world.alice.api);
    const paths = expectInvalid(
      await world.alice.api.post(`/providers/${provider.id}/tools`, { tool: { title: "x" } }),
    );
    expect(paths.sort()).toEqual(["tool.method", "tool.name", "tool.path"]);
    await createTool(world.alice.api, provider.id, { name: `a${"B".repeat(19)}`, title: "t".repeat(64) });
  });

  it("output-only fields are ignored on create and update", async () => {
    const provider = await createProvider(world.alice.api);
    const other = await createProvider(world.alice.api);
    const res = await world.alice.api.post(`/providers/${provider.id}/tools`, {
      tool: toolWrite({ id: "AAAAAAAAAAA", providerID: other.id }),
    });
    expectStatus(res, 201);
    expect(res.body.tool.providerID).toBe(provider.id);
    expect(res.body.tool.id).not.toBe("AAAAAAAAAAA");
    const patched = await world.alice.api.patch(`/providers/${provider.id}/tools/${res.body.tool.id}`, {
      tool: { providerID: other.id, title: "moved?" },
    });
    expectStatus(patched, 200);
    expect(patched.body.tool.providerID).toBe(provider.id);
  });

  it("a PATCH is checked as the whole tool it makes: a new placeholder needs its schema", async () => {
    const provider = await createProvider(world.alice.api);
    const tool = await createTool(world.alice.api, provider.id, { path: "/items" });
    expect(
      expectInvalid(
        await world.alice.api.patch(`/providers/${provider.id}/tools/${tool.id}`, { tool: { path: "/items/{id}" } }),
      ),
    ).toEqual(["tool.pathArgsJSONSchema"]);
    const schema = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };
    const ok = await world.alice.api.patch(`/providers/${provider.id}/tools/${tool.id}`, {
      tool: { path: "/items/{id}", pathArgsJSONSchema: schema },
    });
    expectStatus(ok, 200);
    expect(ok.body.tool).toMatchObject({ path: "/items/{id}", pathArgsJSONSchema: schema });
    expect(
      expectInvalid(
        await world.alice.api.patch(`/providers/${provider.id}/tools/${tool.id}`, { tool: { pathArgsJSONSchema: {} } }),
      ),
    ).toEqual(["tool.pathArgsJSONSchema"]);
    expect(await versionOf(provider.id)).toBe(3);
  });

  it("tool names are unique per provider: 409 ALREADY_EXISTS; another provider may use the name", async () => {
    const provider = await createProvider(world.alice.api);
    const tool = await createTool(world.alice.api, provider.id);
    expectProblem(
      await world.alice.api.post(`/providers/${provider.id}/tools`, { tool: toolWrite({ name: tool.name }) }),
      409,
      "ALREADY_EXISTS",
    );
    const second = await createTool(world.alice.api, provider.id);
    expectProblem(
      await world.alice.api.patch(`/providers/${provider.id}/tools/${second.id}`, { tool: { name: tool.name } }),
      409,
      "ALREADY_EXISTS",
    );
    expect(await versionOf(provider.id)).toBe(3);
    const other = await createProvider(world.alice.api);
    await createTool(world.alice.api, other.id, { name: tool.name });
  });

  it("renaming a tool onto the name of another tool of a server that includes it answers 409", async () => {
    const p1 = await createProvider(world.alice.api);
    const p2 = await createProvider(world.alice.api);
    const a = await createTool(world.alice.api, p1.id, { name: "alpha" });
    const b = await createTool(world.alice.api, p2.id, { name: "beta" });
    await createServer(world.alice.api, { providers: [{ id: p1.id }, { id: p2.id }] });
    expectProblem(
      await world.alice.api.patch(`/providers/${p2.id}/tools/${b.id}`, { tool: { name: "alpha" } }),
      409,
      "ALREADY_EXISTS",
    );
    expect(await fetchRecord(world.alice.api, `/providers/${p2.id}/tools/${b.id}`, "tool")).toEqual(b);
    expect(a.name).toBe("alpha");
  });

  it("deleting a tool a server uses answers 409 FAILED_PRECONDITION", async () => {
    const provider = await createProvider(world.alice.api);
    const used = await createTool(world.alice.api, provider.id);
    const unused = await createTool(world.alice.api, provider.id);
    const server = await createServer(world.alice.api, { providers: [{ id: provider.id, tools: [{ id: used.id }] }] });
    const body = expectProblem(
      await world.alice.api.delete(`/providers/${provider.id}/tools/${used.id}`),
      409,
      "FAILED_PRECONDITION",
    );
    expect(body.references).toEqual([server.id]);
    expectNoContent(await world.alice.api.delete(`/providers/${provider.id}/tools/${unused.id}`));
    expect((await fetchRecord(world.alice.api, `/servers/${server.id}`, "server")).providers[0].tools).toEqual([used]);
  });
});
