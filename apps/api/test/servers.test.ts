import { describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import { expectCreated, expectInvalid, expectProblem, expectStatus, ID, TIMESTAMP } from "./support/problems.js";
import {
  byId,
  createProvider,
  createProviderFamily,
  createServer,
  createTool,
  fetchRecord,
  serverWrite,
  unknownId,
} from "./support/records.js";

// Servers: spec §4 (GET/POST /servers, GET/PATCH/DELETE /servers/{id}) and docs/api-rules.md §§5–8.

const world = serviceForFile({ alice: "servers" });

describe("create and read", () => {
  it("POST /servers answers 201 with Location, ETag and the full nested record", async () => {
    const { provider, tools, prompt, resource } = await createProviderFamily(world.alice.api);
    const res = await world.alice.api.post("/servers", {
      server: {
        name: "  Full Server  ",
        instructions: "Use these tools wisely.",
        requestHeadersProxyEnabled: true,
        providers: [{ id: provider.id, tools: [{ id: tools[1].id }] }],
        resources: [{ id: resource.id }],
        prompts: [{ id: prompt.id }],
      },
    });
    const server = res.body.server;
    expectCreated(res, `/servers/${server.id}`);
    expect(res.headers.get("etag")).toBe('W/"1"');
    expect(Object.keys(res.body)).toEqual(["server"]);
    expect(server.id).toMatch(ID);
    expect(server.createdAt).toMatch(TIMESTAMP);
    expect(server.updatedAt).toBe(server.createdAt);
    // Provider as GET /providers/{id} shows it, but with only the chosen tool.
    const providerNow = await fetchRecord(world.alice.api, `/providers/${provider.id}`, "provider");
    expect(byId(providerNow.tools)).toEqual(byId(tools));
    expect(server).toEqual({
      id: server.id,
      createdAt: server.createdAt,
      updatedAt: server.updatedAt,
      name: "Full Server",
      description: "Use these tools wisely.",
      requestHeadersProxyEnabled: true,
      dynamicToolDiscoveryEnabled: false,
      maxResultTokens: 25000,
      version: 1,
      gitProvider: "",
      gitRepoFullName: "",
      approvalPolicy: "NONE",
      providers: [{ ...providerNow, tools: [tools[1]] }],
      resources: [resource],
      prompts: [prompt],
    });
  });

  it("GET /servers/{id} answers 200 with ETag and the same record as the create", async () => {
    const { provider, prompt, resource } = await createProviderFamily(world.alice.api);
    const created = await createServer(world.alice.api, {
      providers: [{ id: provider.id }],
      resources: [{ id: resource.id }],
      prompts: [{ id: prompt.id }],
    });
    const res = await world.alice.api.get(`/servers/${created.id}`);
    expectStatus(res, 200);
    expect(res.headers.get("etag")).toBe('W/"1"');
    expect(res.body).toEqual({ server: created });
  });

  it("defaults: booleans false, strings empty, lists empty; version in the body is ignored on create", async () => {
    const res = await world.alice.api.post("/servers", { server: { name: "Bare", version: 42 } });
    expectCreated(res, `/servers/${res.body.server.id}`);
    expect(res.body.server).toMatchObject({
      name: "Bare",
      description: "",
      requestHeadersProxyEnabled: false,
      dynamicToolDiscoveryEnabled: false,
      version: 1,
      gitProvider: "",
      gitRepoFullName: "",
      providers: [],
      resources: [],
      prompts: [],
    });
  });

  it("description is accepted as an alias of instructions; both differing is refused", async () => {
    const aliased = await createServer(world.alice.api, {
      description: "via alias",
      dynamicToolDiscoveryEnabled: true,
    });
    expect(aliased.description).toBe("via alias");
    expect(aliased.dynamicToolDiscoveryEnabled).toBe(true);
    const same = await createServer(world.alice.api, { description: "same", instructions: "same" });
    expect(same.description).toBe("same");
    const paths = expectInvalid(
      await world.alice.api.post("/servers", { server: serverWrite({ description: "one", instructions: "two" }) }),
    );
    expect(paths).toEqual(["server.description"]);
  });

  it("GET /servers lists the tenant's servers as a plain array, in creation order", async () => {
    const bob = await world.svc.tenant("bob");
    expect((await bob.api.get("/servers")).body).toEqual({ servers: [] });
    const first = await createServer(bob.api);
    const second = await createServer(bob.api, { instructions: "second" });
    await createServer(world.alice.api);
    const res = await bob.api.get("/servers");
    expectStatus(res, 200);
    expect(Object.keys(res.body)).toEqual(["servers"]);
    expect(byId(res.body.servers)).toEqual(byId([first, second]));
  });
});

describe("tool selection", () => {
  it("providers[].tools absent takes a snapshot of every tool the provider has now", async () => {
    const provider = await createProvider(world.alice.api);
    const t1 = await createTool(world.alice.api, provider.id);
    const t2 = await createTool(world.alice.api, provider.id);
    const server = await createServer(world.alice.api, { providers: [{ id: provider.id }] });
    expect(byId(server.providers[0].tools)).toEqual(byId([t1, t2]));
    // A tool added later does not join the server.
    await createTool(world.alice.api, provider.id);
    const again = await fetchRecord(world.alice.api, `/servers/${server.id}`, "server");
    expect(byId(again.providers[0].tools)).toEqual(byId([t1, t2]));
    expect(again.version).toBe(1);
    const list = await world.alice.api.get(`/servers/${server.id}/tools`);
    expect(byId(list.body.tools)).toEqual(byId([t1, t2]));
  });

  it("providers[].tools [] chooses no tool (the provider is still part of the server)", async () => {
    const provider = await createProvider(world.alice.api);
    await createTool(world.alice.api, provider.id);
    const server = await createServer(world.alice.api, { providers: [{ id: provider.id, tools: [] }] });
    expect(server.providers).toHaveLength(1);
    expect(server.providers[0].id).toBe(provider.id);
    expect(server.providers[0].tools).toEqual([]);
  });

  it("a PATCH naming a provider without tools takes a new snapshot of its tools", async () => {
    const provider = await createProvider(world.alice.api);
    const t1 = await createTool(world.alice.api, provider.id);
    const server = await createServer(world.alice.api, { providers: [{ id: provider.id, tools: [{ id: t1.id }] }] });
    const t2 = await createTool(world.alice.api, provider.id);
    const res = await world.alice.api.patch(`/servers/${server.id}`, { server: { providers: [{ id: provider.id }] } });
    expectStatus(res, 200);
    expect(byId(res.body.server.providers[0].tools)).toEqual(byId([t1, t2]));
    expect(res.body.server.version).toBe(2);
  });

  it("only the chosen tools appear, in the order given", async () => {
    const provider = await createProvider(world.alice.api);
    const [a, b, c] = [
      await createTool(world.alice.api, provider.id),
      await createTool(world.alice.api, provider.id),
      await createTool(world.alice.api, provider.id),
    ];
    const server = await createServer(world.alice.api, {
      providers: [{ id: provider.id, tools: [{ id: c.id }, { id: a.id }] }],
    });
    expect(server.providers[0].tools).toEqual([c, a]);
    expect(server.providers[0].tools).not.toContainEqual(b);
  });

  it("a reference may echo a full record back: only the id is used", async () => {
    const provider = await createProvider(world.alice.api);
    const tool = await createTool(world.alice.api, provider.id);
    const server = await createServer(world.alice.api, {
      providers: [{ ...provider, tools: [{ ...tool, name: "ignoredName" }] }],
    });
    expect(server.providers[0].tools).toEqual([tool]);
  });

  it("two chosen tools with the same name answer 409 ALREADY_EXISTS", async () => {
    const p1 = await createProvider(world.alice.api);
    const p2 = await createProvider(world.alice.api);
    const t1 = await createTool(world.alice.api, p1.id, { name: "search" });
    const t2 = await createTool(world.alice.api, p2.id, { name: "search" });
    const before = (await world.alice.api.get("/servers")).body.servers.length;
    expectProblem(
      await world.alice.api.post("/servers", {
        server: serverWrite({ providers: [{ id: p1.id }, { id: p2.id }] }),
      }),
      409,
      "ALREADY_EXISTS",
    );
    expect((await world.alice.api.get("/servers")).body.servers).toHaveLength(before);
    const server = await createServer(world.alice.api, { providers: [{ id: p1.id, tools: [{ id: t1.id }] }] });
    expectProblem(
      await world.alice.api.patch(`/servers/${server.id}`, {
        server: { providers: [{ id: p1.id }, { id: p2.id, tools: [{ id: t2.id }] }] },
      }),
      409,
      "ALREADY_EXISTS",
    );
    expect((await fetchRecord(world.alice.api, `/servers/${server.id}`, "server")).version).toBe(1);
  });
});

describe("validation", () => {
  it("every problem of the composition is reported together with its JSON path, and nothing is written", async () => {
    const { provider, tools } = await createProviderFamily(world.alice.api);
    const other = await createProviderFamily(world.alice.api);
    const before = (await world.alice.api.get("/servers")).body.servers.length;
    const res = await world.alice.api.post("/servers", {
      server: serverWrite({
        providers: [
          { id: unknownId() },
          {
            id: provider.id,
            tools: [{ id: tools[0].id }, { id: unknownId() }, { id: other.tools[0].id }, { id: tools[0].id }],
          },
          { id: provider.id },
        ],
        resources: [{ id: other.resource.id }, { id: unknownId() }, { id: other.resource.id }],
        prompts: [{ id: unknownId() }],
      }),
    });
    const paths = expectInvalid(res);
    expect(paths.sort()).toEqual(
      [
        "server.providers[0].id",
        "server.providers[1].tools[1].id",
        "server.providers[1].tools[2].id",
        "server.providers[1].tools[3].id",
        "server.providers[2].id",
        "server.resources[1].id",
        "server.resources[2].id",
        "server.prompts[0].id",
      ].sort(),
    );
    expect((await world.alice.api.get("/servers")).body.servers).toHaveLength(before);
  });

  it("schema problems are reported together: types, formats, limits and unknown fields", async () => {
    const res = await world.alice.api.post("/servers", {
      server: {
        name: "   ",
        instructions: 5,
        requestHeadersProxyEnabled: "yes",
        version: 1.5,
        providers: [{ id: "short" }, { id: unknownId(), tools: [{ id: "x" }] }],
        resources: "all",
        prompts: [{}],
        nmae: "typo",
      },
    });
    const paths = expectInvalid(res);
    expect(paths).toEqual(
      expect.arrayContaining([
        "server.name",
        "server.instructions",
        "server.requestHeadersProxyEnabled",
        "server.version",
        "server.providers[0].id",
        "server.providers[1].tools[0].id",
        "server.resources",
        "server.prompts[0].id",
        "server.nmae",
      ]),
    );
    expect(res.body.errors.find((e: { path: string }) => e.path === "server.nmae").message).toBe("unknown field");
  });

  it("name is required on create; names over 100 characters and instructions over 10,000 are refused", async () => {
    expect(expectInvalid(await world.alice.api.post("/servers", { server: { instructions: "x" } }))).toEqual([
      "server.name",
    ]);
    expect(expectInvalid(await world.alice.api.post("/servers", { server: { name: "n".repeat(101) } }))).toEqual([
      "server.name",
    ]);
    await createServer(world.alice.api, { name: `${"n".repeat(96)}${Date.now() % 10000}`.slice(0, 100) });
    expect(
      expectInvalid(
        await world.alice.api.post("/servers", { server: serverWrite({ instructions: "i".repeat(10_001) }) }),
      ),
    ).toEqual(["server.instructions"]);
  });

  it("output-only fields in a write are ignored", async () => {
    const res = await world.alice.api.post("/servers", {
      server: serverWrite({
        id: "AAAAAAAAAAA",
        createdAt: "2000-01-01T00:00:00.000Z",
        updatedAt: "2000-01-01T00:00:00.000Z",
        gitProvider: "github",
        gitRepoFullName: "me/repo",
      }),
    });
    expectStatus(res, 201);
    expect(res.body.server.id).not.toBe("AAAAAAAAAAA");
    expect(res.body.server.createdAt).not.toBe("2000-01-01T00:00:00.000Z");
    expect(res.body.server.gitProvider).toBe("");
    // gitRepoFullName is a write field since git connections (docs/api-rules.md §17); without a connection
    // it is kept and nothing is pushed.
    expect(res.body.server.gitRepoFullName).toBe("me/repo");
  });

  it("a server name is unique per tenant: 409 ALREADY_EXISTS; another tenant may use it", async () => {
    const server = await createServer(world.alice.api);
    expectProblem(await world.alice.api.post("/servers", { server: { name: server.name } }), 409, "ALREADY_EXISTS");
    const other = await createServer(world.alice.api);
    expectProblem(
      await world.alice.api.patch(`/servers/${other.id}`, { server: { name: server.name } }),
      409,
      "ALREADY_EXISTS",
    );
    expect((await fetchRecord(world.alice.api, `/servers/${other.id}`, "server")).name).toBe(other.name);
    const carol = await world.svc.tenant("carol");
    expectStatus(await carol.api.post("/servers", { server: { name: server.name } }), 201);
  });

  it("unknown or malformed ids answer 404 / 400", async () => {
    expectProblem(await world.alice.api.get(`/servers/${unknownId()}`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.patch(`/servers/${unknownId()}`, { server: { name: "x" } }), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.delete(`/servers/${unknownId()}`), 404, "NOT_FOUND");
    expect(expectInvalid(await world.alice.api.get("/servers/0123456789"))).toEqual(["id"]);
    expect(expectInvalid(await world.alice.api.patch("/servers/0123456789ab", { server: { name: "x" } }))).toEqual([
      "id",
    ]);
    expect(expectInvalid(await world.alice.api.delete("/servers/abc_defghij"))).toEqual(["id"]);
  });
});
