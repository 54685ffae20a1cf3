import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import {
  expectCreated,
  expectInvalid,
  expectNoContent,
  expectProblem,
  expectStatus,
  ID,
  TIMESTAMP,
} from "./support/problems.js";
import {
  byId,
  createPrompt,
  createProvider,
  createProviderFamily,
  createResource,
  createServer,
  createTool,
  fetchRecord,
  serverWrite,
  unknownId,
} from "./support/records.js";

// Servers: spec §4 (GET/POST /servers, GET/PATCH/DELETE /servers/{id}) and docs/api-rules.md §§5–8.

let svc: TestService;
let alice: Tenant;

beforeAll(async () => {
  svc = await startTestService();
  alice = await svc.tenant("servers");
});
afterAll(() => svc?.close());

describe("create and read", () => {
  it("POST /servers answers 201 with Location, ETag and the full nested record", async () => {
    const { provider, tools, prompt, resource } = await createProviderFamily(alice.api);
    const res = await alice.api.post("/servers", {
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
    const providerNow = await fetchRecord(alice.api, `/providers/${provider.id}`, "provider");
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
    const { provider, prompt, resource } = await createProviderFamily(alice.api);
    const created = await createServer(alice.api, {
      providers: [{ id: provider.id }],
      resources: [{ id: resource.id }],
      prompts: [{ id: prompt.id }],
    });
    const res = await alice.api.get(`/servers/${created.id}`);
    expectStatus(res, 200);
    expect(res.headers.get("etag")).toBe('W/"1"');
    expect(res.body).toEqual({ server: created });
  });

  it("defaults: booleans false, strings empty, lists empty; version in the body is ignored on create", async () => {
    const res = await alice.api.post("/servers", { server: { name: "Bare", version: 42 } });
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
    const aliased = await createServer(alice.api, { description: "via alias", dynamicToolDiscoveryEnabled: true });
    expect(aliased.description).toBe("via alias");
    expect(aliased.dynamicToolDiscoveryEnabled).toBe(true);
    const same = await createServer(alice.api, { description: "same", instructions: "same" });
    expect(same.description).toBe("same");
    const paths = expectInvalid(
      await alice.api.post("/servers", { server: serverWrite({ description: "one", instructions: "two" }) }),
    );
    expect(paths).toEqual(["server.description"]);
  });

  it("GET /servers lists the tenant's servers as a plain array, in creation order", async () => {
    const bob = await svc.tenant("bob");
    expect((await bob.api.get("/servers")).body).toEqual({ servers: [] });
    const first = await createServer(bob.api);
    const second = await createServer(bob.api, { instructions: "second" });
    await createServer(alice.api);
    const res = await bob.api.get("/servers");
    expectStatus(res, 200);
    expect(Object.keys(res.body)).toEqual(["servers"]);
    expect(byId(res.body.servers)).toEqual(byId([first, second]));
  });
});

describe("tool selection", () => {
  it("providers[].tools absent takes a snapshot of every tool the provider has now", async () => {
    const provider = await createProvider(alice.api);
    const t1 = await createTool(alice.api, provider.id);
    const t2 = await createTool(alice.api, provider.id);
    const server = await createServer(alice.api, { providers: [{ id: provider.id }] });
    expect(byId(server.providers[0].tools)).toEqual(byId([t1, t2]));
    // A tool added later does not join the server.
    await createTool(alice.api, provider.id);
    const again = await fetchRecord(alice.api, `/servers/${server.id}`, "server");
    expect(byId(again.providers[0].tools)).toEqual(byId([t1, t2]));
    expect(again.version).toBe(1);
    const list = await alice.api.get(`/servers/${server.id}/tools`);
    expect(byId(list.body.tools)).toEqual(byId([t1, t2]));
  });

  it("providers[].tools [] chooses no tool (the provider is still part of the server)", async () => {
    const provider = await createProvider(alice.api);
    await createTool(alice.api, provider.id);
    const server = await createServer(alice.api, { providers: [{ id: provider.id, tools: [] }] });
    expect(server.providers).toHaveLength(1);
    expect(server.providers[0].id).toBe(provider.id);
    expect(server.providers[0].tools).toEqual([]);
  });

  it("a PATCH naming a provider without tools takes a new snapshot of its tools", async () => {
    const provider = await createProvider(alice.api);
    const t1 = await createTool(alice.api, provider.id);
    const server = await createServer(alice.api, { providers: [{ id: provider.id, tools: [{ id: t1.id }] }] });
    const t2 = await createTool(alice.api, provider.id);
    const res = await alice.api.patch(`/servers/${server.id}`, { server: { providers: [{ id: provider.id }] } });
    expectStatus(res, 200);
    expect(byId(res.body.server.providers[0].tools)).toEqual(byId([t1, t2]));
    expect(res.body.server.version).toBe(2);
  });

  it("only the chosen tools appear, in the order given", async () => {
    const provider = await createProvider(alice.api);
    const [a, b, c] = [
      await createTool(alice.api, provider.id),
      await createTool(alice.api, provider.id),
      await createTool(alice.api, provider.id),
    ];
    const server = await createServer(alice.api, {
      providers: [{ id: provider.id, tools: [{ id: c.id }, { id: a.id }] }],
    });
    expect(server.providers[0].tools).toEqual([c, a]);
    expect(server.providers[0].tools).not.toContainEqual(b);
  });

  it("a reference may echo a full record back: only the id is used", async () => {
    const provider = await createProvider(alice.api);
    const tool = await createTool(alice.api, provider.id);
    const server = await createServer(alice.api, {
      providers: [{ ...provider, tools: [{ ...tool, name: "ignoredName" }] }],
    });
    expect(server.providers[0].tools).toEqual([tool]);
  });

  it("two chosen tools with the same name answer 409 ALREADY_EXISTS", async () => {
    const p1 = await createProvider(alice.api);
    const p2 = await createProvider(alice.api);
    const t1 = await createTool(alice.api, p1.id, { name: "search" });
    const t2 = await createTool(alice.api, p2.id, { name: "search" });
    const before = (await alice.api.get("/servers")).body.servers.length;
    expectProblem(
      await alice.api.post("/servers", {
        server: serverWrite({ providers: [{ id: p1.id }, { id: p2.id }] }),
      }),
      409,
      "ALREADY_EXISTS",
    );
    expect((await alice.api.get("/servers")).body.servers).toHaveLength(before);
    const server = await createServer(alice.api, { providers: [{ id: p1.id, tools: [{ id: t1.id }] }] });
    expectProblem(
      await alice.api.patch(`/servers/${server.id}`, {
        server: { providers: [{ id: p1.id }, { id: p2.id, tools: [{ id: t2.id }] }] },
      }),
      409,
      "ALREADY_EXISTS",
    );
    expect((await fetchRecord(alice.api, `/servers/${server.id}`, "server")).version).toBe(1);
  });
});

describe("validation", () => {
  it("every problem of the composition is reported together with its JSON path, and nothing is written", async () => {
    const { provider, tools } = await createProviderFamily(alice.api);
    const other = await createProviderFamily(alice.api);
    const before = (await alice.api.get("/servers")).body.servers.length;
    const res = await alice.api.post("/servers", {
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
    expect((await alice.api.get("/servers")).body.servers).toHaveLength(before);
  });

  it("schema problems are reported together: types, formats, limits and unknown fields", async () => {
    const res = await alice.api.post("/servers", {
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
    expect(expectInvalid(await alice.api.post("/servers", { server: { instructions: "x" } }))).toEqual(["server.name"]);
    expect(expectInvalid(await alice.api.post("/servers", { server: { name: "n".repeat(101) } }))).toEqual([
      "server.name",
    ]);
    await createServer(alice.api, { name: `${"n".repeat(96)}${Date.now() % 10000}`.slice(0, 100) });
    expect(
      expectInvalid(await alice.api.post("/servers", { server: serverWrite({ instructions: "i".repeat(10_001) }) })),
    ).toEqual(["server.instructions"]);
  });

  it("output-only fields in a write are ignored", async () => {
    const res = await alice.api.post("/servers", {
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
    const server = await createServer(alice.api);
    expectProblem(await alice.api.post("/servers", { server: { name: server.name } }), 409, "ALREADY_EXISTS");
    const other = await createServer(alice.api);
    expectProblem(
      await alice.api.patch(`/servers/${other.id}`, { server: { name: server.name } }),
      409,
      "ALREADY_EXISTS",
    );
    expect((await fetchRecord(alice.api, `/servers/${other.id}`, "server")).name).toBe(other.name);
    const carol = await svc.tenant("carol");
    expectStatus(await carol.api.post("/servers", { server: { name: server.name } }), 201);
  });

  it("unknown or malformed ids answer 404 / 400", async () => {
    expectProblem(await alice.api.get(`/servers/${unknownId()}`), 404, "NOT_FOUND");
    expectProblem(await alice.api.patch(`/servers/${unknownId()}`, { server: { name: "x" } }), 404, "NOT_FOUND");
    expectProblem(await alice.api.delete(`/servers/${unknownId()}`), 404, "NOT_FOUND");
    expect(expectInvalid(await alice.api.get("/servers/0123456789"))).toEqual(["id"]);
    expect(expectInvalid(await alice.api.patch("/servers/0123456789ab", { server: { name: "x" } }))).toEqual(["id"]);
    expect(expectInvalid(await alice.api.delete("/servers/abc_defghij"))).toEqual(["id"]);
  });
});

describe("update", () => {
  it("PATCH changes the given fields only, bumps version by 1 and returns ETag", async () => {
    const { provider, prompt, resource } = await createProviderFamily(alice.api);
    const created = await createServer(alice.api, {
      instructions: "keep me",
      providers: [{ id: provider.id }],
      resources: [{ id: resource.id }],
      prompts: [{ id: prompt.id }],
    });
    const res = await alice.api.patch(`/servers/${created.id}`, { server: { name: "Renamed server" } });
    expectStatus(res, 200);
    expect(res.headers.get("etag")).toBe('W/"2"');
    expect(res.body.server).toEqual({
      ...created,
      name: "Renamed server",
      version: 2,
      updatedAt: res.body.server.updatedAt,
    });
    expect(res.body.server.updatedAt).toMatch(TIMESTAMP);
    expect(Date.parse(res.body.server.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    expect(await fetchRecord(alice.api, `/servers/${created.id}`, "server")).toEqual(res.body.server);
    const third = await alice.api.patch(`/servers/${created.id}`, { server: { dynamicToolDiscoveryEnabled: true } });
    expect(third.body.server.version).toBe(3);
    expect(third.headers.get("etag")).toBe('W/"3"');
  });

  it("arrays are replaced whole; absent arrays stay", async () => {
    const { provider, tools, prompt, resource } = await createProviderFamily(alice.api);
    const server = await createServer(alice.api, {
      providers: [{ id: provider.id }],
      resources: [{ id: resource.id }],
      prompts: [{ id: prompt.id }],
    });
    const res = await alice.api.patch(`/servers/${server.id}`, {
      server: { providers: [{ id: provider.id, tools: [{ id: tools[1].id }] }], resources: [] },
    });
    expectStatus(res, 200);
    expect(res.body.server.providers[0].tools).toEqual([tools[1]]);
    expect(res.body.server.resources).toEqual([]);
    expect(res.body.server.prompts).toEqual([prompt]);
    expect(res.body.server.version).toBe(2);
    const cleared = await alice.api.patch(`/servers/${server.id}`, { server: { providers: [], prompts: [] } });
    expect(cleared.body.server).toMatchObject({ providers: [], resources: [], prompts: [], version: 3 });
  });

  it("instructions (or its alias description) replace the description", async () => {
    const server = await createServer(alice.api, { instructions: "first" });
    const viaInstructions = await alice.api.patch(`/servers/${server.id}`, { server: { instructions: "second" } });
    expect(viaInstructions.body.server.description).toBe("second");
    const viaAlias = await alice.api.patch(`/servers/${server.id}`, { server: { description: "third" } });
    expect(viaAlias.body.server.description).toBe("third");
    expect(viaAlias.body.server.version).toBe(3);
  });

  it("a PATCH with invalid references reports every problem and changes nothing", async () => {
    const { provider } = await createProviderFamily(alice.api);
    const server = await createServer(alice.api, { providers: [{ id: provider.id }] });
    const paths = expectInvalid(
      await alice.api.patch(`/servers/${server.id}`, {
        server: {
          name: "would change",
          providers: [{ id: provider.id, tools: [{ id: unknownId() }] }],
          prompts: [{ id: unknownId() }],
        },
      }),
    );
    expect(paths.sort()).toEqual(["server.prompts[0].id", "server.providers[0].tools[0].id"]);
    expect(await fetchRecord(alice.api, `/servers/${server.id}`, "server")).toEqual(server);
  });

  it("a PATCH carrying the stored version applies; a stale version answers 409 ABORTED and changes nothing", async () => {
    const server = await createServer(alice.api);
    const ok = await alice.api.patch(`/servers/${server.id}`, { server: { version: 1, name: `${server.name} v2` } });
    expectStatus(ok, 200);
    expect(ok.body.server.version).toBe(2);
    const stale = await alice.api.patch(`/servers/${server.id}`, { server: { version: 1, name: "stale write" } });
    expectProblem(stale, 409, "ABORTED");
    const ahead = await alice.api.patch(`/servers/${server.id}`, { server: { version: 7, name: "future write" } });
    expectProblem(ahead, 409, "ABORTED");
    expect(await fetchRecord(alice.api, `/servers/${server.id}`, "server")).toEqual(ok.body.server);
  });

  it("If-Match on PATCH is honoured: 412 on mismatch, applied on match", async () => {
    const server = await createServer(alice.api);
    await alice.api.patch(`/servers/${server.id}`, { server: { instructions: "v2" } });
    const mismatch = await alice.api.patch(
      `/servers/${server.id}`,
      { server: { name: "no" } },
      { "if-match": 'W/"1"' },
    );
    expectProblem(mismatch, 412, "PRECONDITION_FAILED");
    const garbage = await alice.api.patch(
      `/servers/${server.id}`,
      { server: { name: "no" } },
      { "if-match": "nonsense" },
    );
    expectProblem(garbage, 412, "PRECONDITION_FAILED");
    expect((await fetchRecord(alice.api, `/servers/${server.id}`, "server")).name).toBe(server.name);
    const match = await alice.api.patch(
      `/servers/${server.id}`,
      { server: { name: `${server.name}!` } },
      { "if-match": 'W/"2"' },
    );
    expectStatus(match, 200);
    expect(match.headers.get("etag")).toBe('W/"3"');
    const any = await alice.api.patch(
      `/servers/${server.id}`,
      { server: { name: `${server.name}?` } },
      { "if-match": "*" },
    );
    expectStatus(any, 200);
  });
});

describe("concurrent writes", () => {
  it("of many writers naming the same version, exactly one applies; the others answer 409 ABORTED", async () => {
    const server = await createServer(alice.api);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        alice.api.patch(`/servers/${server.id}`, { server: { version: 1, instructions: `writer ${i}` } }),
      ),
    );
    const applied = answers.filter((r) => r.status === 200);
    expect(applied).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 200)) expectProblem(r, 409, "ABORTED");
    const now = await fetchRecord(alice.api, `/servers/${server.id}`, "server");
    expect(now.version).toBe(2);
    expect(now.description).toBe(applied[0]?.body.server.description);
  });

  it("unconditional writers all apply, each as its own version", async () => {
    const server = await createServer(alice.api);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        alice.api.patch(`/servers/${server.id}`, { server: { instructions: `w${i}` } }),
      ),
    );
    for (const r of answers) expectStatus(r, 200);
    expect(answers.map((r) => r.body.server.version).sort()).toEqual([2, 3, 4, 5, 6, 7]);
    expect((await fetchRecord(alice.api, `/servers/${server.id}`, "server")).version).toBe(7);
  });

  it("of many creates with one name, exactly one succeeds", async () => {
    const name = `Race ${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => alice.api.post("/servers", { server: { name } })),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 201)) expectProblem(r, 409, "ALREADY_EXISTS");
  });
});

describe("delete", () => {
  it("DELETE answers 204 with no body; the server is gone", async () => {
    const server = await createServer(alice.api);
    expectNoContent(await alice.api.delete(`/servers/${server.id}`));
    expectProblem(await alice.api.get(`/servers/${server.id}`), 404, "NOT_FOUND");
    expectProblem(await alice.api.delete(`/servers/${server.id}`), 404, "NOT_FOUND");
    const listed = (await alice.api.get("/servers")).body.servers.map((s: { id: string }) => s.id);
    expect(listed).not.toContain(server.id);
  });

  it("If-Match on DELETE: 412 on mismatch (the server stays), 204 on match", async () => {
    const server = await createServer(alice.api);
    expectProblem(await alice.api.delete(`/servers/${server.id}`, { "if-match": 'W/"2"' }), 412, "PRECONDITION_FAILED");
    expectStatus(await alice.api.get(`/servers/${server.id}`), 200);
    expectNoContent(await alice.api.delete(`/servers/${server.id}`, { "if-match": 'W/"1"' }));
  });

  it("deleting a server frees its name and the records it used", async () => {
    const { provider, prompt, resource } = await createProviderFamily(alice.api);
    const server = await createServer(alice.api, {
      providers: [{ id: provider.id }],
      resources: [{ id: resource.id }],
      prompts: [{ id: prompt.id }],
    });
    expectProblem(await alice.api.delete(`/providers/${provider.id}`), 409, "FAILED_PRECONDITION");
    expectNoContent(await alice.api.delete(`/servers/${server.id}`));
    expectStatus(await alice.api.post("/servers", { server: { name: server.name } }), 201);
    expectNoContent(await alice.api.delete(`/providers/${provider.id}`));
  });
});

describe("association routes", () => {
  it("tools: GET lists the chosen tools; POST adds one (its provider joins); DELETE removes one; each bumps the version", async () => {
    const p1 = await createProvider(alice.api);
    const [a, b] = [await createTool(alice.api, p1.id), await createTool(alice.api, p1.id)];
    const p2 = await createProvider(alice.api);
    const c = await createTool(alice.api, p2.id);
    const server = await createServer(alice.api, { providers: [{ id: p1.id, tools: [{ id: a.id }] }] });

    const list = await alice.api.get(`/servers/${server.id}/tools`);
    expectStatus(list, 200);
    expect(list.body).toEqual({ tools: [a] });

    const addB = await alice.api.post(`/servers/${server.id}/tools`, { tool: { providerID: p1.id, toolID: b.id } });
    expectCreated(addB, `/servers/${server.id}/tools/${b.id}`);
    expect(addB.body).toEqual({ tool: b });
    let now = await fetchRecord(alice.api, `/servers/${server.id}`, "server");
    expect(now.version).toBe(2);
    expect(now.providers.map((p: { id: string }) => p.id)).toEqual([p1.id]);
    expect(now.providers[0].tools).toEqual([a, b]);

    const addC = await alice.api.post(`/servers/${server.id}/tools`, { tool: { providerID: p2.id, toolID: c.id } });
    expectCreated(addC, `/servers/${server.id}/tools/${c.id}`);
    now = await fetchRecord(alice.api, `/servers/${server.id}`, "server");
    expect(now.version).toBe(3);
    expect(now.providers.map((p: { id: string }) => p.id)).toEqual([p1.id, p2.id]);
    expect(now.providers[1].tools).toEqual([c]);
    expect((await alice.api.get(`/servers/${server.id}/tools`)).body).toEqual({ tools: [a, b, c] });

    expectProblem(
      await alice.api.post(`/servers/${server.id}/tools`, { tool: { providerID: p1.id, toolID: a.id } }),
      409,
      "ALREADY_EXISTS",
    );

    expectNoContent(await alice.api.delete(`/servers/${server.id}/tools/${a.id}`));
    now = await fetchRecord(alice.api, `/servers/${server.id}`, "server");
    expect(now.version).toBe(4);
    expect(now.providers[0].tools).toEqual([b]);
    expectProblem(await alice.api.delete(`/servers/${server.id}/tools/${a.id}`), 404, "NOT_FOUND");
    expect((await fetchRecord(alice.api, `/servers/${server.id}`, "server")).version).toBe(4);
  });

  it("tools: a tool of another provider, an unknown tool, a tool named like a chosen one, a bad body", async () => {
    const p1 = await createProvider(alice.api);
    const a = await createTool(alice.api, p1.id, { name: "sameName" });
    const p2 = await createProvider(alice.api);
    const b = await createTool(alice.api, p2.id, { name: "sameName" });
    const server = await createServer(alice.api, { providers: [{ id: p1.id }] });
    expect(
      expectInvalid(await alice.api.post(`/servers/${server.id}/tools`, { tool: { providerID: p1.id, toolID: b.id } })),
    ).toEqual(["tool.toolID"]);
    expect(
      expectInvalid(
        await alice.api.post(`/servers/${server.id}/tools`, { tool: { providerID: unknownId(), toolID: b.id } }),
      ),
    ).toEqual(["tool.providerID"]);
    expectProblem(
      await alice.api.post(`/servers/${server.id}/tools`, { tool: { providerID: p2.id, toolID: b.id } }),
      409,
      "ALREADY_EXISTS",
    );
    expect(
      expectInvalid(
        await alice.api.post(`/servers/${server.id}/tools`, { tool: { providerId: p1.id, toolID: a.id } }),
      ).sort(),
    ).toEqual(["tool.providerID", "tool.providerId"]);
    expectProblem(
      await alice.api.post(`/servers/${unknownId()}/tools`, { tool: { providerID: p1.id, toolID: a.id } }),
      404,
      "NOT_FOUND",
    );
    expect((await fetchRecord(alice.api, `/servers/${server.id}`, "server")).version).toBe(1);
  });

  it("resources: GET, POST (201 + Location), DELETE; each change bumps the version", async () => {
    const provider = await createProvider(alice.api);
    const [r1, r2] = [await createResource(alice.api, provider.id), await createResource(alice.api, provider.id)];
    const server = await createServer(alice.api, { resources: [{ id: r1.id }] });
    expect((await alice.api.get(`/servers/${server.id}/resources`)).body).toEqual({ resources: [r1] });
    const add = await alice.api.post(`/servers/${server.id}/resources`, { resource: { resourceID: r2.id } });
    expectCreated(add, `/servers/${server.id}/resources/${r2.id}`);
    expect(add.body).toEqual({ resource: r2 });
    expect((await alice.api.get(`/servers/${server.id}/resources`)).body).toEqual({ resources: [r1, r2] });
    expect((await fetchRecord(alice.api, `/servers/${server.id}`, "server")).version).toBe(2);
    expectProblem(
      await alice.api.post(`/servers/${server.id}/resources`, { resource: { resourceID: r2.id } }),
      409,
      "ALREADY_EXISTS",
    );
    expect(
      expectInvalid(await alice.api.post(`/servers/${server.id}/resources`, { resource: { resourceID: unknownId() } })),
    ).toEqual(["resource.resourceID"]);
    expectNoContent(await alice.api.delete(`/servers/${server.id}/resources/${r1.id}`));
    const after = await fetchRecord(alice.api, `/servers/${server.id}`, "server");
    expect(after.version).toBe(3);
    expect(after.resources).toEqual([r2]);
    expectProblem(await alice.api.delete(`/servers/${server.id}/resources/${r1.id}`), 404, "NOT_FOUND");
  });

  it("prompts: GET, POST (201 + Location), DELETE; each change bumps the version", async () => {
    const provider = await createProvider(alice.api);
    const [p1, p2] = [await createPrompt(alice.api, provider.id), await createPrompt(alice.api, provider.id)];
    const server = await createServer(alice.api);
    expect((await alice.api.get(`/servers/${server.id}/prompts`)).body).toEqual({ prompts: [] });
    const add1 = await alice.api.post(`/servers/${server.id}/prompts`, { prompt: { promptID: p1.id } });
    expectCreated(add1, `/servers/${server.id}/prompts/${p1.id}`);
    expect(add1.body).toEqual({ prompt: p1 });
    const add2 = await alice.api.post(`/servers/${server.id}/prompts`, { prompt: { promptID: p2.id } });
    expectStatus(add2, 201);
    expect((await alice.api.get(`/servers/${server.id}/prompts`)).body).toEqual({ prompts: [p1, p2] });
    expect((await fetchRecord(alice.api, `/servers/${server.id}`, "server")).version).toBe(3);
    expectProblem(
      await alice.api.post(`/servers/${server.id}/prompts`, { prompt: { promptID: p1.id } }),
      409,
      "ALREADY_EXISTS",
    );
    expect(expectInvalid(await alice.api.post(`/servers/${server.id}/prompts`, { prompt: {} }))).toEqual([
      "prompt.promptID",
    ]);
    expectNoContent(await alice.api.delete(`/servers/${server.id}/prompts/${p2.id}`));
    const after = await fetchRecord(alice.api, `/servers/${server.id}`, "server");
    expect(after.version).toBe(4);
    expect(after.prompts).toEqual([p1]);
    expect(expectInvalid(await alice.api.delete(`/servers/${server.id}/prompts/nope`))).toEqual(["promptID"]);
  });
});
