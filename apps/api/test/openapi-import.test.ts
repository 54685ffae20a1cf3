import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { serviceForFile } from "./support/file-service.js";
import { type RecordingUpstream, startRecordingUpstream } from "./support/recording-upstream.js";

// POST /providers/import and POST /providers/{id}/import over HTTP (docs/api-rules.md §15), and an imported
// tool called end to end through /mcp/{id} against a local upstream that checks what it receives.

const world = serviceForFile({ alice: "importer" }, { mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
let upstream: RecordingUpstream;
let upstreamUrl: string;

/** A pet shop description whose server is the local upstream. */
const petShop = (extraPaths: Record<string, unknown> = {}) =>
  stringify({
    openapi: "3.0.3",
    info: { title: "Pet Shop", version: "1.0.0", description: "Pets and their toys." },
    servers: [{ url: `${upstreamUrl}/api` }],
    paths: {
      "/pets/{petId}/toys": {
        parameters: [{ name: "petId", in: "path", required: true, schema: { type: "integer" } }],
        post: {
          operationId: "addToy",
          summary: "Give a pet a toy",
          parameters: [{ name: "notify", in: "query", required: true, schema: { type: "boolean" } }],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/Toy" } } },
          },
        },
        get: { operationId: "listToys", summary: "List a pet's toys" },
      },
      ...extraPaths,
    },
    components: {
      schemas: {
        Toy: {
          type: "object",
          required: ["name"],
          properties: { name: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
        },
      },
    },
  });

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  upstreamUrl = upstream.url;
});

afterAll(() => upstream?.close());

describe("POST /providers/import", () => {
  it("a dry run answers 200 with the provider it would create (no id) and stores nothing", async () => {
    const res = await world.alice.api.post("/providers/import", { import: { document: petShop(), dryRun: true } });
    expect(res.status).toBe(200);
    expect(res.body.provider.id).toBeUndefined();
    expect(res.body.provider.tools.map((t: { name: string }) => t.name)).toEqual(["addToy", "listToys"]);
    expect(res.body.report).toEqual({
      added: [
        { name: "addToy", method: "POST", path: "/pets/{petId}/toys" },
        { name: "listToys", method: "GET", path: "/pets/{petId}/toys" },
      ],
      changed: [],
      removed: [],
      kept: [],
      unchanged: 0,
      skipped: [],
      warnings: [],
    });
    expect((await world.alice.api.get("/providers")).body.providers).toEqual([]);
  });

  it("bad descriptions answer 400 with every problem located", async () => {
    const res = await world.alice.api.post("/providers/import", {
      import: {
        document: {
          openapi: "3.0.0",
          info: { title: "x", version: "1" },
          paths: { "/a": { get: { parameters: [{ $ref: "#/nope" }] }, post: { requestBody: { $ref: "#/gone" } } } },
        },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("INVALID_ARGUMENT");
    expect(res.body.errors).toEqual([
      {
        path: "import.document.paths['/a'].get.parameters[0].$ref",
        message: "$ref '#/nope' points to nothing in the document",
      },
      {
        path: "import.document.paths['/a'].post.requestBody.$ref",
        message: "$ref '#/gone' points to nothing in the document",
      },
    ]);
    const unknown = await world.alice.api.post("/providers/import", { import: { document: petShop(), dryrun: true } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ path: "import.dryrun", message: "unknown field" }]);
  });

  it("takes bodies up to 16 MiB on the import routes only; the description itself up to 10 MiB", async () => {
    const padding = "x".repeat(2 * 1024 * 1024);
    const twoMiB = await world.alice.api.post("/providers/import", {
      import: { document: petShop().replace("Pets and their toys.", padding), dryRun: true },
    });
    expect(twoMiB.status).toBe(200);
    const elsewhere = await world.alice.api.post("/providers", {
      provider: { name: "p", baseURL: upstreamUrl, description: padding },
    });
    expect(elsewhere.status).toBe(413);
    const elevenMiB = await world.alice.api.post("/providers/import", {
      import: { document: "x".repeat(11 * 1024 * 1024) },
    });
    expect(elevenMiB.status).toBe(400);
    expect(elevenMiB.body.errors).toEqual([
      { path: "import.document", message: "is 11.0 MiB; a description may be at most 10 MiB" },
    ]);
    const seventeenMiB = await world.alice.api.post("/providers/import", {
      import: { document: "x".repeat(17 * 1024 * 1024) },
    });
    expect(seventeenMiB.status).toBe(413);
  });

  it("creates the provider (201, Location), and an imported tool is called end to end through /mcp/{id}", async () => {
    const res = await world.alice.api.post("/providers/import", { import: { document: petShop() } });
    expect(res.status).toBe(201);
    const provider = res.body.provider;
    expect(res.headers.get("location")).toBe(`/providers/${provider.id}`);
    expect(provider).toMatchObject({ name: "Pet Shop", baseURL: `${upstreamUrl}/api`, version: 1 });
    expect((await world.alice.api.get(`/providers/${provider.id}`)).body.provider).toEqual(provider);

    const server = await world.alice.api.post("/servers", {
      server: { name: "Pets", providers: [{ id: provider.id }] },
    });
    expect(server.status).toBe(201);
    const token = (await world.alice.api.post(`/servers/${server.body.server.id}/tokens`, { token: { name: "agent" } }))
      .body.token.value;
    const client = new Client({ name: "import-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${world.svc.url}/mcp/${server.body.server.id}`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const listed = (await client.listTools()).tools.find((t) => t.name === "addToy");
    expect(listed?.inputSchema.required).toEqual(["pathArgs", "queryArgs", "bodyArgs"]);
    const result = await client.callTool({
      name: "addToy",
      arguments: { pathArgs: { petId: 7 }, queryArgs: { notify: true }, bodyArgs: { name: "ball", tags: ["red"] } },
    });
    expect(result.isError).not.toBe(true);
    expect(upstream.received.at(-1)).toEqual({
      method: "POST",
      path: "/api/pets/7/toys",
      query: { notify: "true" },
      body: { name: "ball", tags: ["red"] },
    });
    // The imported schema is enforced before anything goes upstream.
    const refusedCall = await client.callTool({
      name: "addToy",
      arguments: { pathArgs: { petId: 7 }, queryArgs: { notify: true }, bodyArgs: { tags: ["no name"] } },
    });
    expect(refusedCall.isError).toBe(true);
    expect(upstream.received).toHaveLength(1);
    await client.close();
  });
});

describe("POST /providers/{id}/import", () => {
  it("re-syncs: matched tools keep their ids, the version moves once, the report says what changed", async () => {
    const created = (
      await world.alice.api.post("/providers/import", {
        import: { document: petShop(), provider: { name: "Pet Shop 2" } },
      })
    ).body.provider;
    const res = await world.alice.api.post(`/providers/${created.id}/import`, {
      import: { document: petShop({ "/pets": { get: { operationId: "listPets" } } }) },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe(`W/"${created.version + 1}"`);
    expect(res.body.report).toMatchObject({
      added: [{ name: "listPets", method: "GET", path: "/pets" }],
      changed: [],
      removed: [],
      unchanged: 2,
    });
    expect(res.body.provider.tools.slice(0, 2).map((t: { id: string }) => t.id)).toEqual(
      created.tools.map((t: { id: string }) => t.id),
    );
    const other = await world.svc.tenant("other");
    expect((await other.api.post(`/providers/${created.id}/import`, { import: { document: petShop() } })).status).toBe(
      404,
    );
    const readOnly = world.svc.client(await world.svc.token(world.alice.id, ["provider:read", "provider:create"]));
    const denied = await readOnly.post(`/providers/${created.id}/import`, { import: { document: petShop() } });
    expect(denied.status).toBe(403);
  });

  it("renames that swap names between tools, removals and kept tools go through in one transaction", async () => {
    const doc = (first: string, second: string, extra: Record<string, unknown> = {}) => ({
      openapi: "3.0.3",
      info: { title: `Swap ${first}`, version: "1" },
      servers: [{ url: upstreamUrl }],
      paths: { "/x": { get: { operationId: first } }, "/y": { get: { operationId: second } }, ...extra },
    });
    const created = (
      await world.alice.api.post("/providers/import", {
        import: { document: doc("alpha", "beta", { "/z": { delete: { operationId: "gamma" } }, "/w": { put: {} } }) },
      })
    ).body.provider;
    const [x, y, z, w] = created.tools;
    await world.alice.api.post("/servers", {
      server: { name: "Swap", providers: [{ id: created.id, tools: [{ id: z.id }] }] },
    });
    const res = await world.alice.api.post(`/providers/${created.id}/import`, {
      import: { document: { ...doc("beta", "alpha"), info: { title: "Swap alpha", version: "2" } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.report).toMatchObject({
      added: [],
      changed: [
        { name: "beta", path: "/x", fields: ["name", "description"] },
        { name: "alpha", path: "/y", fields: ["name", "description"] },
      ],
      removed: [{ name: "putW", method: "PUT", path: "/w" }],
      kept: [{ name: "gamma", method: "DELETE", path: "/z" }],
      unchanged: 0,
    });
    const stored = (await world.alice.api.get(`/providers/${created.id}`)).body.provider;
    expect(stored.tools.map((t: { id: string; name: string }) => [t.id, t.name])).toEqual([
      [x.id, "beta"],
      [y.id, "alpha"],
      [z.id, "gamma"],
    ]);
    expect(w.name).toBe("putW");
  });
});
