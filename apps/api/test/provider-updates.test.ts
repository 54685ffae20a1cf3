import { describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import { expectNoContent, expectProblem, expectStatus } from "./support/problems.js";
import {
  createPrompt,
  createProvider,
  createResource,
  createServer,
  createTool,
  fetchRecord,
  promptWrite,
  providerWrite,
  resourceWrite,
  toolWrite,
} from "./support/records.js";

// Providers: spec §4 (POST/GET /providers, GET/PATCH/DELETE /providers/{id}) and docs/api-rules.md §§6, 7, 9.
// Listing and paging are in pagination.test.ts.

const world = serviceForFile({ alice: "providers" });

describe("update and versions", () => {
  it("PATCH is partial, bumps version by 1 and returns ETag", async () => {
    const provider = await createProvider(world.alice.api, {
      description: "first",
      documentURL: "https://docs.example.com",
    });
    const res = await world.alice.api.patch(`/providers/${provider.id}`, { provider: { description: "second" } });
    expectStatus(res, 200);
    expect(res.headers.get("etag")).toBe('W/"2"');
    expect(res.body.provider).toEqual({
      ...provider,
      description: "second",
      version: 2,
      updatedAt: res.body.provider.updatedAt,
    });
    const vis = await world.alice.api.patch(`/providers/${provider.id}`, {
      provider: { visibilityType: "PUBLIC", documentURL: "" },
    });
    expect(vis.body.provider).toMatchObject({ visibilityType: "PUBLIC", documentURL: "", version: 3 });
    expect(vis.headers.get("etag")).toBe('W/"3"');
    expect(await fetchRecord(world.alice.api, `/providers/${provider.id}`, "provider")).toEqual(vis.body.provider);
  });

  it("a change to the provider's tools, prompts or resources bumps its version", async () => {
    const provider = await createProvider(world.alice.api);
    const version = async () => {
      const res = await world.alice.api.get(`/providers/${provider.id}`);
      expect(res.headers.get("etag")).toBe(`W/"${res.body.provider.version}"`);
      return res.body.provider.version;
    };
    const tool = await createTool(world.alice.api, provider.id);
    expect(await version()).toBe(2);
    await world.alice.api.patch(`/providers/${provider.id}/tools/${tool.id}`, { tool: { title: "New title" } });
    expect(await version()).toBe(3);
    const prompt = await createPrompt(world.alice.api, provider.id);
    expect(await version()).toBe(4);
    await world.alice.api.patch(`/providers/${provider.id}/prompts/${prompt.id}`, {
      prompt: { description: "changed" },
    });
    expect(await version()).toBe(5);
    const resource = await createResource(world.alice.api, provider.id);
    expect(await version()).toBe(6);
    await world.alice.api.patch(`/providers/${provider.id}/resources/${resource.id}`, { resource: { size: 1 } });
    expect(await version()).toBe(7);
    await world.alice.api.delete(`/providers/${provider.id}/tools/${tool.id}`);
    await world.alice.api.delete(`/providers/${provider.id}/prompts/${prompt.id}`);
    await world.alice.api.delete(`/providers/${provider.id}/resources/${resource.id}`);
    expect(await version()).toBe(10);
  });

  it("If-Match on PATCH: 412 on mismatch (nothing changes), applied on match", async () => {
    const provider = await createProvider(world.alice.api);
    const stale = await world.alice.api.patch(
      `/providers/${provider.id}`,
      { provider: { description: "x" } },
      { "if-match": 'W/"5"' },
    );
    expectProblem(stale, 412, "PRECONDITION_FAILED");
    expect(await fetchRecord(world.alice.api, `/providers/${provider.id}`, "provider")).toEqual(provider);
    const ok = await world.alice.api.patch(
      `/providers/${provider.id}`,
      { provider: { description: "x" } },
      { "if-match": 'W/"1"' },
    );
    expectStatus(ok, 200);
    expect(ok.headers.get("etag")).toBe('W/"2"');
    const old = await world.alice.api.patch(
      `/providers/${provider.id}`,
      { provider: { description: "y" } },
      { "if-match": 'W/"1"' },
    );
    expectProblem(old, 412, "PRECONDITION_FAILED");
  });
});

describe("concurrent writes", () => {
  it("concurrent changes of a provider's children each bump its version once", async () => {
    const provider = await createProvider(world.alice.api);
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () =>
        world.alice.api.post(`/providers/${provider.id}/tools`, { tool: toolWrite() }),
      ),
      ...Array.from({ length: 3 }, () =>
        world.alice.api.post(`/providers/${provider.id}/prompts`, { prompt: promptWrite() }),
      ),
      ...Array.from({ length: 3 }, () =>
        world.alice.api.post(`/providers/${provider.id}/resources`, { resource: resourceWrite() }),
      ),
    ]);
    for (const r of answers) expectStatus(r, 201);
    const now = await fetchRecord(world.alice.api, `/providers/${provider.id}`, "provider");
    expect(now.version).toBe(11);
    expect(now.tools).toHaveLength(4);
  });

  it("If-Match writers racing on one version: exactly one applies, the others answer 412", async () => {
    const provider = await createProvider(world.alice.api);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        world.alice.api.patch(
          `/providers/${provider.id}`,
          { provider: { description: `d${i}` } },
          { "if-match": 'W/"1"' },
        ),
      ),
    );
    const applied = answers.filter((r) => r.status === 200);
    expect(applied).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 200)) {
      expect([409, 412]).toContain(r.status);
      expect(["ABORTED", "PRECONDITION_FAILED"]).toContain(r.body.code);
    }
    expect((await fetchRecord(world.alice.api, `/providers/${provider.id}`, "provider")).version).toBe(2);
  });
});

describe("delete", () => {
  it("DELETE answers 204 with no body and removes the provider with its tools, prompts and resources", async () => {
    const provider = await createProvider(world.alice.api);
    const tool = await createTool(world.alice.api, provider.id);
    const prompt = await createPrompt(world.alice.api, provider.id);
    const resource = await createResource(world.alice.api, provider.id);
    expectNoContent(await world.alice.api.delete(`/providers/${provider.id}`));
    expectProblem(await world.alice.api.get(`/providers/${provider.id}`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.get(`/providers/${provider.id}/tools/${tool.id}`), 404, "NOT_FOUND");
    expect(await world.svc.inspect((tx) => tx.findTool(tool.id))).toBeUndefined();
    expect(await world.svc.inspect((tx) => tx.findPrompt(prompt.id))).toBeUndefined();
    expect(await world.svc.inspect((tx) => tx.findResource(resource.id))).toBeUndefined();
    expectProblem(await world.alice.api.delete(`/providers/${provider.id}`), 404, "NOT_FOUND");
    // Its name is free again.
    expectStatus(await world.alice.api.post("/providers", { provider: providerWrite({ name: provider.name }) }), 201);
  });

  it("deleting a provider whose prompt or resource a server uses answers 409 FAILED_PRECONDITION", async () => {
    const provider = await createProvider(world.alice.api);
    const prompt = await createPrompt(world.alice.api, provider.id);
    const resource = await createResource(world.alice.api, provider.id);
    // The servers name only the prompt, resp. the resource, not the provider itself.
    const withPrompt = await createServer(world.alice.api, { prompts: [{ id: prompt.id }] });
    const withResource = await createServer(world.alice.api, { resources: [{ id: resource.id }] });
    const body = expectProblem(await world.alice.api.delete(`/providers/${provider.id}`), 409, "FAILED_PRECONDITION");
    expect([...(body.references ?? [])].sort()).toEqual([withPrompt.id, withResource.id].sort());
    expect((await fetchRecord(world.alice.api, `/servers/${withPrompt.id}`, "server")).prompts).toEqual([prompt]);
    expect((await fetchRecord(world.alice.api, `/servers/${withResource.id}`, "server")).resources).toEqual([resource]);
    expectNoContent(await world.alice.api.delete(`/servers/${withPrompt.id}`));
    expectProblem(await world.alice.api.delete(`/providers/${provider.id}`), 409, "FAILED_PRECONDITION");
    expectNoContent(await world.alice.api.delete(`/servers/${withResource.id}`));
    expectNoContent(await world.alice.api.delete(`/providers/${provider.id}`));
  });

  it("If-Match on DELETE: 412 on mismatch, 204 on match", async () => {
    const provider = await createProvider(world.alice.api);
    expectProblem(
      await world.alice.api.delete(`/providers/${provider.id}`, { "if-match": 'W/"9"' }),
      412,
      "PRECONDITION_FAILED",
    );
    expectStatus(await world.alice.api.get(`/providers/${provider.id}`), 200);
    expectNoContent(await world.alice.api.delete(`/providers/${provider.id}`, { "if-match": 'W/"1"' }));
  });

  it("deleting a provider a server uses answers 409 FAILED_PRECONDITION naming the server", async () => {
    const provider = await createProvider(world.alice.api);
    await createTool(world.alice.api, provider.id);
    const server = await createServer(world.alice.api, { providers: [{ id: provider.id, tools: [] }] });
    const body = expectProblem(await world.alice.api.delete(`/providers/${provider.id}`), 409, "FAILED_PRECONDITION");
    expect(body.references).toEqual([server.id]);
    expectStatus(await world.alice.api.get(`/providers/${provider.id}`), 200);
    // Once the server lets go of it, it can be deleted.
    await world.alice.api.patch(`/servers/${server.id}`, { server: { providers: [] } });
    expectNoContent(await world.alice.api.delete(`/providers/${provider.id}`));
  });
});
