import { describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import { expectCreated, expectInvalid, expectNoContent, expectProblem, expectStatus } from "./support/problems.js";
import {
  createPrompt,
  createProvider,
  createResource,
  createServer,
  createTool,
  fetchRecord,
  unknownId,
} from "./support/records.js";

// Servers: spec §4 (GET/POST /servers, GET/PATCH/DELETE /servers/{id}) and docs/api-rules.md §§5–8.

const world = serviceForFile({ alice: "servers" });

describe("association routes", () => {
  it("tools: GET lists the chosen tools; POST adds one (its provider joins); DELETE removes one; each bumps the version", async () => {
    const p1 = await createProvider(world.alice.api);
    const [a, b] = [await createTool(world.alice.api, p1.id), await createTool(world.alice.api, p1.id)];
    const p2 = await createProvider(world.alice.api);
    const c = await createTool(world.alice.api, p2.id);
    const server = await createServer(world.alice.api, { providers: [{ id: p1.id, tools: [{ id: a.id }] }] });

    const list = await world.alice.api.get(`/servers/${server.id}/tools`);
    expectStatus(list, 200);
    expect(list.body).toEqual({ tools: [a] });

    const addB = await world.alice.api.post(`/servers/${server.id}/tools`, {
      tool: { providerID: p1.id, toolID: b.id },
    });
    expectCreated(addB, `/servers/${server.id}/tools/${b.id}`);
    expect(addB.body).toEqual({ tool: b });
    let now = await fetchRecord(world.alice.api, `/servers/${server.id}`, "server");
    expect(now.version).toBe(2);
    expect(now.providers.map((p: { id: string }) => p.id)).toEqual([p1.id]);
    expect(now.providers[0].tools).toEqual([a, b]);

    const addC = await world.alice.api.post(`/servers/${server.id}/tools`, {
      tool: { providerID: p2.id, toolID: c.id },
    });
    expectCreated(addC, `/servers/${server.id}/tools/${c.id}`);
    now = await fetchRecord(world.alice.api, `/servers/${server.id}`, "server");
    expect(now.version).toBe(3);
    expect(now.providers.map((p: { id: string }) => p.id)).toEqual([p1.id, p2.id]);
    expect(now.providers[1].tools).toEqual([c]);
    expect((await world.alice.api.get(`/servers/${server.id}/tools`)).body).toEqual({ tools: [a, b, c] });

    expectProblem(
      await world.alice.api.post(`/servers/${server.id}/tools`, { tool: { providerID: p1.id, toolID: a.id } }),
      409,
      "ALREADY_EXISTS",
    );

    expectNoContent(await world.alice.api.delete(`/servers/${server.id}/tools/${a.id}`));
    now = await fetchRecord(world.alice.api, `/servers/${server.id}`, "server");
    expect(now.version).toBe(4);
    expect(now.providers[0].tools).toEqual([b]);
    expectProblem(await world.alice.api.delete(`/servers/${server.id}/tools/${a.id}`), 404, "NOT_FOUND");
    expect((await fetchRecord(world.alice.api, `/servers/${server.id}`, "server")).version).toBe(4);
  });

  it("tools: a tool of another provider, an unknown tool, a tool named like a chosen one, a bad body", async () => {
    const p1 = await createProvider(world.alice.api);
    const a = await createTool(world.alice.api, p1.id, { name: "sameName" });
    const p2 = await createProvider(world.alice.api);
    const b = await createTool(world.alice.api, p2.id, { name: "sameName" });
    const server = await createServer(world.alice.api, { providers: [{ id: p1.id }] });
    expect(
      expectInvalid(
        await world.alice.api.post(`/servers/${server.id}/tools`, { tool: { providerID: p1.id, toolID: b.id } }),
      ),
    ).toEqual(["tool.toolID"]);
    expect(
      expectInvalid(
        await world.alice.api.post(`/servers/${server.id}/tools`, { tool: { providerID: unknownId(), toolID: b.id } }),
      ),
    ).toEqual(["tool.providerID"]);
    expectProblem(
      await world.alice.api.post(`/servers/${server.id}/tools`, { tool: { providerID: p2.id, toolID: b.id } }),
      409,
      "ALREADY_EXISTS",
    );
    expect(
      expectInvalid(
        await world.alice.api.post(`/servers/${server.id}/tools`, { tool: { providerId: p1.id, toolID: a.id } }),
      ).sort(),
    ).toEqual(["tool.providerID", "tool.providerId"]);
    expectProblem(
      await world.alice.api.post(`/servers/${unknownId()}/tools`, { tool: { providerID: p1.id, toolID: a.id } }),
      404,
      "NOT_FOUND",
    );
    expect((await fetchRecord(world.alice.api, `/servers/${server.id}`, "server")).version).toBe(1);
  });

  it("resources: GET, POST (201 + Location), DELETE; each change bumps the version", async () => {
    const provider = await createProvider(world.alice.api);
    const [r1, r2] = [
      await createResource(world.alice.api, provider.id),
      await createResource(world.alice.api, provider.id),
    ];
    const server = await createServer(world.alice.api, { resources: [{ id: r1.id }] });
    expect((await world.alice.api.get(`/servers/${server.id}/resources`)).body).toEqual({ resources: [r1] });
    const add = await world.alice.api.post(`/servers/${server.id}/resources`, { resource: { resourceID: r2.id } });
    expectCreated(add, `/servers/${server.id}/resources/${r2.id}`);
    expect(add.body).toEqual({ resource: r2 });
    expect((await world.alice.api.get(`/servers/${server.id}/resources`)).body).toEqual({ resources: [r1, r2] });
    expect((await fetchRecord(world.alice.api, `/servers/${server.id}`, "server")).version).toBe(2);
    expectProblem(
      await world.alice.api.post(`/servers/${server.id}/resources`, { resource: { resourceID: r2.id } }),
      409,
      "ALREADY_EXISTS",
    );
    expect(
      expectInvalid(
        await world.alice.api.post(`/servers/${server.id}/resources`, { resource: { resourceID: unknownId() } }),
      ),
    ).toEqual(["resource.resourceID"]);
    expectNoContent(await world.alice.api.delete(`/servers/${server.id}/resources/${r1.id}`));
    const after = await fetchRecord(world.alice.api, `/servers/${server.id}`, "server");
    expect(after.version).toBe(3);
    expect(after.resources).toEqual([r2]);
    expectProblem(await world.alice.api.delete(`/servers/${server.id}/resources/${r1.id}`), 404, "NOT_FOUND");
  });

  it("prompts: GET, POST (201 + Location), DELETE; each change bumps the version", async () => {
    const provider = await createProvider(world.alice.api);
    const [p1, p2] = [
      await createPrompt(world.alice.api, provider.id),
      await createPrompt(world.alice.api, provider.id),
    ];
    const server = await createServer(world.alice.api);
    expect((await world.alice.api.get(`/servers/${server.id}/prompts`)).body).toEqual({ prompts: [] });
    const add1 = await world.alice.api.post(`/servers/${server.id}/prompts`, { prompt: { promptID: p1.id } });
    expectCreated(add1, `/servers/${server.id}/prompts/${p1.id}`);
    expect(add1.body).toEqual({ prompt: p1 });
    const add2 = await world.alice.api.post(`/servers/${server.id}/prompts`, { prompt: { promptID: p2.id } });
    expectStatus(add2, 201);
    expect((await world.alice.api.get(`/servers/${server.id}/prompts`)).body).toEqual({ prompts: [p1, p2] });
    expect((await fetchRecord(world.alice.api, `/servers/${server.id}`, "server")).version).toBe(3);
    expectProblem(
      await world.alice.api.post(`/servers/${server.id}/prompts`, { prompt: { promptID: p1.id } }),
      409,
      "ALREADY_EXISTS",
    );
    expect(expectInvalid(await world.alice.api.post(`/servers/${server.id}/prompts`, { prompt: {} }))).toEqual([
      "prompt.promptID",
    ]);
    expectNoContent(await world.alice.api.delete(`/servers/${server.id}/prompts/${p2.id}`));
    const after = await fetchRecord(world.alice.api, `/servers/${server.id}`, "server");
    expect(after.version).toBe(4);
    expect(after.prompts).toEqual([p1]);
    expect(expectInvalid(await world.alice.api.delete(`/servers/${server.id}/prompts/nope`))).toEqual(["promptID"]);
  });
});
