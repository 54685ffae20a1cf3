import { describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import { expectInvalid, expectNoContent, expectProblem, expectStatus, TIMESTAMP } from "./support/problems.js";
import { createProviderFamily, createServer, fetchRecord, unknownId } from "./support/records.js";

// Servers: spec §4 (GET/POST /servers, GET/PATCH/DELETE /servers/{id}) and docs/api-rules.md §§5–8.

const world = serviceForFile({ alice: "servers" });

describe("update", () => {
  it("PATCH changes the given fields only, bumps version by 1 and returns ETag", async () => {
    const { provider, prompt, resource } = await createProviderFamily(world.alice.api);
    const created = await createServer(world.alice.api, {
      instructions: "keep me",
      providers: [{ id: provider.id }],
      resources: [{ id: resource.id }],
      prompts: [{ id: prompt.id }],
    });
    const res = await world.alice.api.patch(`/servers/${created.id}`, { server: { name: "Renamed server" } });
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
    expect(await fetchRecord(world.alice.api, `/servers/${created.id}`, "server")).toEqual(res.body.server);
    const third = await world.alice.api.patch(`/servers/${created.id}`, {
      server: { dynamicToolDiscoveryEnabled: true },
    });
    expect(third.body.server.version).toBe(3);
    expect(third.headers.get("etag")).toBe('W/"3"');
  });

  it("arrays are replaced whole; absent arrays stay", async () => {
    const { provider, tools, prompt, resource } = await createProviderFamily(world.alice.api);
    const server = await createServer(world.alice.api, {
      providers: [{ id: provider.id }],
      resources: [{ id: resource.id }],
      prompts: [{ id: prompt.id }],
    });
    const res = await world.alice.api.patch(`/servers/${server.id}`, {
      server: { providers: [{ id: provider.id, tools: [{ id: tools[1].id }] }], resources: [] },
    });
    expectStatus(res, 200);
    expect(res.body.server.providers[0].tools).toEqual([tools[1]]);
    expect(res.body.server.resources).toEqual([]);
    expect(res.body.server.prompts).toEqual([prompt]);
    expect(res.body.server.version).toBe(2);
    const cleared = await world.alice.api.patch(`/servers/${server.id}`, { server: { providers: [], prompts: [] } });
    expect(cleared.body.server).toMatchObject({ providers: [], resources: [], prompts: [], version: 3 });
  });

  it("instructions (or its alias description) replace the description", async () => {
    const server = await createServer(world.alice.api, { instructions: "first" });
    const viaInstructions = await world.alice.api.patch(`/servers/${server.id}`, {
      server: { instructions: "second" },
    });
    expect(viaInstructions.body.server.description).toBe("second");
    const viaAlias = await world.alice.api.patch(`/servers/${server.id}`, { server: { description: "third" } });
    expect(viaAlias.body.server.description).toBe("third");
    expect(viaAlias.body.server.version).toBe(3);
  });

  it("a PATCH with invalid references reports every problem and changes nothing", async () => {
    const { provider } = await createProviderFamily(world.alice.api);
    const server = await createServer(world.alice.api, { providers: [{ id: provider.id }] });
    const paths = expectInvalid(
      await world.alice.api.patch(`/servers/${server.id}`, {
        server: {
          name: "would change",
          providers: [{ id: provider.id, tools: [{ id: unknownId() }] }],
          prompts: [{ id: unknownId() }],
        },
      }),
    );
    expect(paths.sort()).toEqual(["server.prompts[0].id", "server.providers[0].tools[0].id"]);
    expect(await fetchRecord(world.alice.api, `/servers/${server.id}`, "server")).toEqual(server);
  });

  it("a PATCH carrying the stored version applies; a stale version answers 409 ABORTED and changes nothing", async () => {
    const server = await createServer(world.alice.api);
    const ok = await world.alice.api.patch(`/servers/${server.id}`, {
      server: { version: 1, name: `${server.name} v2` },
    });
    expectStatus(ok, 200);
    expect(ok.body.server.version).toBe(2);
    const stale = await world.alice.api.patch(`/servers/${server.id}`, { server: { version: 1, name: "stale write" } });
    expectProblem(stale, 409, "ABORTED");
    const ahead = await world.alice.api.patch(`/servers/${server.id}`, {
      server: { version: 7, name: "future write" },
    });
    expectProblem(ahead, 409, "ABORTED");
    expect(await fetchRecord(world.alice.api, `/servers/${server.id}`, "server")).toEqual(ok.body.server);
  });

  it("If-Match on PATCH is honoured: 412 on mismatch, applied on match", async () => {
    const server = await createServer(world.alice.api);
    await world.alice.api.patch(`/servers/${server.id}`, { server: { instructions: "v2" } });
    const mismatch = await world.alice.api.patch(
      `/servers/${server.id}`,
      { server: { name: "no" } },
      { "if-match": 'W/"1"' },
    );
    expectProblem(mismatch, 412, "PRECONDITION_FAILED");
    const garbage = await world.alice.api.patch(
      `/servers/${server.id}`,
      { server: { name: "no" } },
      { "if-match": "nonsense" },
    );
    expectProblem(garbage, 412, "PRECONDITION_FAILED");
    expect((await fetchRecord(world.alice.api, `/servers/${server.id}`, "server")).name).toBe(server.name);
    const match = await world.alice.api.patch(
      `/servers/${server.id}`,
      { server: { name: `${server.name}!` } },
      { "if-match": 'W/"2"' },
    );
    expectStatus(match, 200);
    expect(match.headers.get("etag")).toBe('W/"3"');
    const any = await world.alice.api.patch(
      `/servers/${server.id}`,
      { server: { name: `${server.name}?` } },
      { "if-match": "*" },
    );
    expectStatus(any, 200);
  });
});

describe("concurrent writes", () => {
  it("of many writers naming the same version, exactly one applies; the others answer 409 ABORTED", async () => {
    const server = await createServer(world.alice.api);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        world.alice.api.patch(`/servers/${server.id}`, { server: { version: 1, instructions: `writer ${i}` } }),
      ),
    );
    const applied = answers.filter((r) => r.status === 200);
    expect(applied).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 200)) expectProblem(r, 409, "ABORTED");
    const now = await fetchRecord(world.alice.api, `/servers/${server.id}`, "server");
    expect(now.version).toBe(2);
    expect(now.description).toBe(applied[0]?.body.server.description);
  });

  it("unconditional writers all apply, each as its own version", async () => {
    const server = await createServer(world.alice.api);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        world.alice.api.patch(`/servers/${server.id}`, { server: { instructions: `w${i}` } }),
      ),
    );
    for (const r of answers) expectStatus(r, 200);
    expect(answers.map((r) => r.body.server.version).sort()).toEqual([2, 3, 4, 5, 6, 7]);
    expect((await fetchRecord(world.alice.api, `/servers/${server.id}`, "server")).version).toBe(7);
  });

  it("of many creates with one name, exactly one succeeds", async () => {
    const name = `Race ${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => world.alice.api.post("/servers", { server: { name } })),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 201)) expectProblem(r, 409, "ALREADY_EXISTS");
  });
});

describe("delete", () => {
  it("DELETE answers 204 with no body; the server is gone", async () => {
    const server = await createServer(world.alice.api);
    expectNoContent(await world.alice.api.delete(`/servers/${server.id}`));
    expectProblem(await world.alice.api.get(`/servers/${server.id}`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.delete(`/servers/${server.id}`), 404, "NOT_FOUND");
    const listed = (await world.alice.api.get("/servers")).body.servers.map((s: { id: string }) => s.id);
    expect(listed).not.toContain(server.id);
  });

  it("If-Match on DELETE: 412 on mismatch (the server stays), 204 on match", async () => {
    const server = await createServer(world.alice.api);
    expectProblem(
      await world.alice.api.delete(`/servers/${server.id}`, { "if-match": 'W/"2"' }),
      412,
      "PRECONDITION_FAILED",
    );
    expectStatus(await world.alice.api.get(`/servers/${server.id}`), 200);
    expectNoContent(await world.alice.api.delete(`/servers/${server.id}`, { "if-match": 'W/"1"' }));
  });

  it("deleting a server frees its name and the records it used", async () => {
    const { provider, prompt, resource } = await createProviderFamily(world.alice.api);
    const server = await createServer(world.alice.api, {
      providers: [{ id: provider.id }],
      resources: [{ id: resource.id }],
      prompts: [{ id: prompt.id }],
    });
    expectProblem(await world.alice.api.delete(`/providers/${provider.id}`), 409, "FAILED_PRECONDITION");
    expectNoContent(await world.alice.api.delete(`/servers/${server.id}`));
    expectStatus(await world.alice.api.post("/servers", { server: { name: server.name } }), 201);
    expectNoContent(await world.alice.api.delete(`/providers/${provider.id}`));
  });
});
