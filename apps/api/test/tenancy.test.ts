import { beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../src/http/route-table.js";
import type { Client } from "./support/harness.js";
import { serviceForFile } from "./support/file-service.js";
import { expectInvalid, expectNoContent, expectProblem, expectStatus } from "./support/problems.js";
import {
  createPrompt,
  createProvider,
  createResource,
  createServer,
  createTool,
  fetchRecord,
  providerWrite,
  unknownId,
} from "./support/records.js";
import { callFor, makeRouteFixture, type RouteFixture } from "./support/route-fixture.js";

// docs/api-rules.md §4: a tenant sees and changes only its own records; another tenant's INTERNAL record
// answers 404 exactly as if it did not exist; a PUBLIC provider (with its tools, prompts, resources) is
// readable, listable and usable by everyone, but only its owner may change it (others: 403).

const world = serviceForFile({ alice: "alice", bob: "bob" });

/** Everything a fixture's owner can read about it, to prove another tenant's requests changed nothing. */
const snapshot = async (api: Client, f: RouteFixture) => ({
  server: await fetchRecord(api, `/servers/${f.S}`, "server"),
  tokens: (await api.get(`/servers/${f.S}/tokens`)).body,
  providers: [
    await fetchRecord(api, `/providers/${f.P}`, "provider"),
    await fetchRecord(api, `/providers/${f.P2}`, "provider"),
  ] as const,
  children: [
    (await api.get(`/providers/${f.P}/prompts`)).body,
    (await api.get(`/providers/${f.P}/resources`)).body,
    (await api.get(`/providers/${f.P2}/prompts`)).body,
    (await api.get(`/providers/${f.P2}/resources`)).body,
  ],
  variable: await fetchRecord(api, `/variables/${f.V}`, "variable"),
});

const idRoutes = ROUTES.filter((r) => r.path.includes(":id"));
const label = (r: (typeof ROUTES)[number]) => `${r.method} ${r.path}`;

describe("another tenant's INTERNAL records answer 404", () => {
  let fixture: RouteFixture;
  let before: Awaited<ReturnType<typeof snapshot>>;

  beforeAll(async () => {
    fixture = await makeRouteFixture(world.alice.api);
    before = await snapshot(world.alice.api, fixture);
  });

  it.each(idRoutes.map((r) => [label(r), r] as const))("%s", async (_label, route) => {
    const { path, body } = callFor(route, fixture);
    const res = await world.bob.api.request(route.method, path, body === undefined ? {} : { body });
    expectProblem(res, 404, "NOT_FOUND");
    expect(await snapshot(world.alice.api, fixture)).toEqual(before);
  });

  it("the 404 is the same as for an id that does not exist", async () => {
    for (const [path, id] of [
      ["/servers/", fixture.S],
      ["/providers/", fixture.P],
      ["/variables/", fixture.V],
    ] as const) {
      const theirs = await world.bob.api.get(`${path}${id}`);
      const missingId = unknownId();
      const missing = await world.bob.api.get(`${path}${missingId}`);
      expectProblem(theirs, 404, "NOT_FOUND");
      expectProblem(missing, 404, "NOT_FOUND");
      expect(theirs.body.detail.replace(id, "ID")).toBe(missing.body.detail.replace(missingId, "ID"));
    }
  });

  it("lists show only the caller's records", async () => {
    const own = await createServer(world.bob.api);
    const servers = (await world.bob.api.get("/servers")).body.servers.map((s: { id: string }) => s.id);
    expect(servers).toContain(own.id);
    expect(servers).not.toContain(fixture.S);
    const variables = (await world.bob.api.get("/variables")).body.variables.map((v: { id: string }) => v.id);
    expect(variables).not.toContain(fixture.V);
    const providers = (await world.bob.api.get("/providers?limit=1000")).body.providers.map(
      (p: { id: string }) => p.id,
    );
    expect(providers).not.toContain(fixture.P);
    expect(providers).not.toContain(fixture.P2);
  });

  it("they cannot be put into the caller's server (400, as unknown ids)", async () => {
    const paths = expectInvalid(
      await world.bob.api.post("/servers", {
        server: {
          name: "borrowing",
          providers: [{ id: fixture.P, tools: [{ id: fixture.T }] }],
          resources: [{ id: fixture.R }],
          prompts: [{ id: fixture.Pr }],
        },
      }),
    );
    expect(paths.sort()).toEqual(["server.prompts[0].id", "server.providers[0].id", "server.resources[0].id"]);
    const own = await createServer(world.bob.api);
    expect(
      expectInvalid(
        await world.bob.api.post(`/servers/${own.id}/tools`, { tool: { providerID: fixture.P, toolID: fixture.T } }),
      ),
    ).toEqual(["tool.providerID"]);
    expect(
      expectInvalid(await world.bob.api.post(`/servers/${own.id}/resources`, { resource: { resourceID: fixture.R } })),
    ).toEqual(["resource.resourceID"]);
    expect(
      expectInvalid(await world.bob.api.post(`/servers/${own.id}/prompts`, { prompt: { promptID: fixture.Pr } })),
    ).toEqual(["prompt.promptID"]);
    expect((await fetchRecord(world.bob.api, `/servers/${own.id}`, "server")).version).toBe(1);
  });
});

describe("another tenant's PUBLIC provider", () => {
  let fixture: RouteFixture;
  let before: Awaited<ReturnType<typeof snapshot>>;

  beforeAll(async () => {
    fixture = await makeRouteFixture(world.alice.api, { visibilityType: "PUBLIC" });
    before = await snapshot(world.alice.api, fixture);
  });

  it("is readable with its tools, prompts and resources, exactly as its owner sees it", async () => {
    for (const path of [
      `/providers/${fixture.P}`,
      `/providers/${fixture.P}/tools`,
      `/providers/${fixture.P}/tools/${fixture.T}`,
      `/providers/${fixture.P}/prompts`,
      `/providers/${fixture.P}/prompts/${fixture.Pr}`,
      `/providers/${fixture.P}/resources`,
      `/providers/${fixture.P}/resources/${fixture.R}`,
    ]) {
      const theirs = await world.bob.api.get(path);
      expectStatus(theirs, 200);
      expect(theirs.body).toEqual((await world.alice.api.get(path)).body);
    }
  });

  it("is listed for every tenant", async () => {
    const name = before.providers[0].name;
    const res = await world.bob.api.get(`/providers?nameContains=${encodeURIComponent(name)}`);
    expectStatus(res, 200);
    expect(res.body).toEqual({ providers: [before.providers[0]], matchCount: 1, nextToken: "" });
  });

  it("may be put into another tenant's server, with its tools, prompts and resources", async () => {
    const res = await world.bob.api.post("/servers", {
      server: {
        name: "uses public",
        providers: [{ id: fixture.P, tools: [{ id: fixture.T2 }] }],
        resources: [{ id: fixture.R }],
        prompts: [{ id: fixture.Pr }],
      },
    });
    expectStatus(res, 201);
    const server = res.body.server;
    const tool = await fetchRecord(world.bob.api, `/providers/${fixture.P}/tools/${fixture.T2}`, "tool");
    expect(server.providers).toEqual([{ ...before.providers[0], tools: [tool] }]);
    expect(server.resources).toEqual([
      await fetchRecord(world.bob.api, `/providers/${fixture.P}/resources/${fixture.R}`, "resource"),
    ]);
    expect(server.prompts).toEqual([
      await fetchRecord(world.bob.api, `/providers/${fixture.P}/prompts/${fixture.Pr}`, "prompt"),
    ]);
    expectStatus(
      await world.bob.api.post(`/servers/${server.id}/tools`, { tool: { providerID: fixture.P2, toolID: fixture.T3 } }),
      201,
    );
    expectStatus(
      await world.bob.api.post(`/servers/${server.id}/resources`, { resource: { resourceID: fixture.R2 } }),
      201,
    );
    expectStatus(await world.bob.api.post(`/servers/${server.id}/prompts`, { prompt: { promptID: fixture.Pr2 } }), 201);
    expect((await fetchRecord(world.bob.api, `/servers/${server.id}`, "server")).version).toBe(4);
    // Clean up so the provider is free again for the tests below.
    expectNoContent(await world.bob.api.delete(`/servers/${server.id}`));
  });

  // A shape preview is a read that stores nothing (docs/api-rules.md §19): a PUBLIC tool is previewed by all.
  const writes = ROUTES.filter(
    (r) => r.path.startsWith("/providers/:id") && r.method !== "GET" && r.operation !== "previewToolShape",
  );
  it.each(writes.map((r) => [label(r), r] as const))(
    "%s by another tenant answers 403 and changes nothing",
    async (_l, route) => {
      const { path, body } = callFor(route, fixture);
      const res = await world.bob.api.request(route.method, path, body === undefined ? {} : { body });
      expectProblem(res, 403, "PERMISSION_DENIED");
      expect(res.headers.get("www-authenticate") ?? "").not.toContain("insufficient_scope");
      expect(await snapshot(world.alice.api, fixture)).toEqual(before);
    },
  );
});

describe("references across tenants", () => {
  it("turning a PUBLIC provider INTERNAL while another tenant's server uses it answers 409 FAILED_PRECONDITION", async () => {
    const provider = await createProvider(world.alice.api, { visibilityType: "PUBLIC" });
    await createTool(world.alice.api, provider.id);
    // The owner's own server does not block the change.
    const own = await createServer(world.alice.api, { providers: [{ id: provider.id }] });
    const theirs = await createServer(world.bob.api, { providers: [{ id: provider.id }] });
    const body = expectProblem(
      await world.alice.api.patch(`/providers/${provider.id}`, { provider: { visibilityType: "INTERNAL" } }),
      409,
      "FAILED_PRECONDITION",
    );
    expect(JSON.stringify(body)).not.toContain(theirs.id);
    const still = await fetchRecord(world.alice.api, `/providers/${provider.id}`, "provider");
    expect(still).toMatchObject({ visibilityType: "PUBLIC", version: 2 });
    // Other changes stay possible.
    expectStatus(
      await world.alice.api.patch(`/providers/${provider.id}`, { provider: { description: "still public" } }),
      200,
    );
    // Once the other tenant lets go, it may turn INTERNAL, and then it is invisible to that tenant.
    expectNoContent(await world.bob.api.delete(`/servers/${theirs.id}`));
    const turned = await world.alice.api.patch(`/providers/${provider.id}`, {
      provider: { visibilityType: "INTERNAL" },
    });
    expectStatus(turned, 200);
    expect(turned.body.provider.visibilityType).toBe("INTERNAL");
    expectProblem(await world.bob.api.get(`/providers/${provider.id}`), 404, "NOT_FOUND");
    expect((await fetchRecord(world.alice.api, `/servers/${own.id}`, "server")).providers[0].id).toBe(provider.id);
  });

  it("a PUBLIC provider stays PUBLIC while another tenant's server uses only its prompt or resource", async () => {
    const provider = await createProvider(world.alice.api, { visibilityType: "PUBLIC" });
    const prompt = await createPrompt(world.alice.api, provider.id);
    const resource = await createResource(world.alice.api, provider.id);
    const theirs = await createServer(world.bob.api, { prompts: [{ id: prompt.id }] });
    const internal = { provider: { visibilityType: "INTERNAL" } };
    expectProblem(await world.alice.api.patch(`/providers/${provider.id}`, internal), 409, "FAILED_PRECONDITION");
    expectStatus(
      await world.bob.api.patch(`/servers/${theirs.id}`, { server: { prompts: [], resources: [{ id: resource.id }] } }),
      200,
    );
    expectProblem(await world.alice.api.patch(`/providers/${provider.id}`, internal), 409, "FAILED_PRECONDITION");
    expect((await fetchRecord(world.bob.api, `/servers/${theirs.id}`, "server")).resources).toEqual([resource]);
    expectNoContent(await world.bob.api.delete(`/servers/${theirs.id}`));
    expectStatus(await world.alice.api.patch(`/providers/${provider.id}`, internal), 200);
  });

  it("deleting a PUBLIC provider or tool another tenant's server uses answers 409, without naming that server", async () => {
    const provider = await createProvider(world.alice.api, { visibilityType: "PUBLIC" });
    const tool = await createTool(world.alice.api, provider.id);
    const theirs = await createServer(world.bob.api, { providers: [{ id: provider.id }] });
    for (const path of [`/providers/${provider.id}`, `/providers/${provider.id}/tools/${tool.id}`]) {
      const res = await world.alice.api.delete(path);
      const body = expectProblem(res, 409, "FAILED_PRECONDITION");
      expect(body.references ?? []).not.toContain(theirs.id);
      expect(res.text).not.toContain(theirs.id);
    }
    expect((await fetchRecord(world.bob.api, `/servers/${theirs.id}`, "server")).providers[0].tools).toEqual([tool]);
  });

  it("the 409 counts only the caller's servers: another tenant's servers are said to exist, never counted (issue 10)", async () => {
    const provider = await createProvider(world.alice.api, { visibilityType: "PUBLIC" });
    const tool = await createTool(world.alice.api, provider.id);
    const prompt = await createPrompt(world.alice.api, provider.id);
    const own = await createServer(world.alice.api, { providers: [{ id: provider.id }], prompts: [{ id: prompt.id }] });
    await createServer(world.bob.api, { providers: [{ id: provider.id }], prompts: [{ id: prompt.id }] });
    await createServer(world.bob.api, { providers: [{ id: provider.id }], prompts: [{ id: prompt.id }] });
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`/providers/${provider.id}`, `provider '${provider.id}'`],
      [`/providers/${provider.id}/tools/${tool.id}`, `tool '${tool.id}'`],
      [`/providers/${provider.id}/prompts/${prompt.id}`, `prompt '${prompt.id}'`],
    ];
    for (const [path, what] of cases) {
      const body = expectProblem(await world.alice.api.delete(path), 409, "FAILED_PRECONDITION");
      // Three servers use it; the caller sees one of them. It was "used by 3 server(s)".
      expect(body.detail).toBe(`${what} is used by 1 of your server(s) and servers of other tenants`);
      expect(body.references).toEqual([own.id]);
    }
    expectNoContent(await world.alice.api.delete(`/servers/${own.id}`));
    const body = expectProblem(await world.alice.api.delete(`/providers/${provider.id}`), 409, "FAILED_PRECONDITION");
    expect(body.detail).toBe(`provider '${provider.id}' is used by servers of other tenants`);
    const internal = { provider: { visibilityType: "INTERNAL" } };
    const turned = expectProblem(
      await world.alice.api.patch(`/providers/${provider.id}`, internal),
      409,
      "FAILED_PRECONDITION",
    );
    expect(turned.detail).toBe(`provider '${provider.id}' is used by servers of other tenants and must stay PUBLIC`);
  });

  it("names are unique per tenant only: another tenant may reuse a PUBLIC provider's name", async () => {
    const provider = await createProvider(world.alice.api, { visibilityType: "PUBLIC" });
    expectStatus(await world.bob.api.post("/providers", { provider: providerWrite({ name: provider.name }) }), 201);
  });
});
