import { describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
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
  createResource,
  createServer,
  fetchRecord,
  promptWrite,
  resourceWrite,
  unknownId,
} from "./support/records.js";

// A provider's tools, prompts and resources: spec §4 (POST /providers/{id}/prompts, GET of one prompt) and
// the extra routes of docs/api-rules.md §9, with the rules of §6.

const world = serviceForFile({ alice: "children" });

const versionOf = async (providerId: string) =>
  (await fetchRecord(world.alice.api, `/providers/${providerId}`, "provider")).version;

describe("prompts", () => {
  it("POST /providers/{id}/prompts answers 201 with Location and the full prompt", async () => {
    const provider = await createProvider(world.alice.api);
    const write = promptWrite({ name: "Summarise" });
    const res = await world.alice.api.post(`/providers/${provider.id}/prompts`, { prompt: write });
    const prompt = res.body.prompt;
    expectCreated(res, `/providers/${provider.id}/prompts/${prompt.id}`);
    expect(prompt.id).toMatch(ID);
    expect(prompt.createdAt).toMatch(TIMESTAMP);
    expect(prompt).toEqual({
      ...write,
      id: prompt.id,
      providerID: provider.id,
      createdAt: prompt.createdAt,
      updatedAt: prompt.createdAt,
    });
    expect(await versionOf(provider.id)).toBe(2);
  });

  it("defaults: empty description, arguments and messages", async () => {
    const provider = await createProvider(world.alice.api);
    const res = await world.alice.api.post(`/providers/${provider.id}/prompts`, { prompt: { name: "Bare prompt" } });
    expectStatus(res, 201);
    expect(res.body.prompt).toMatchObject({ name: "Bare prompt", description: "", arguments: [], messages: [] });
  });

  it("GET /providers/{id}/prompts/{promptID} and the list; PATCH; DELETE", async () => {
    const provider = await createProvider(world.alice.api);
    const a = await createPrompt(world.alice.api, provider.id);
    const b = await createPrompt(world.alice.api, provider.id);
    const one = await world.alice.api.get(`/providers/${provider.id}/prompts/${a.id}`);
    expectStatus(one, 200);
    expect(one.body).toEqual({ prompt: a });
    expect(byId((await world.alice.api.get(`/providers/${provider.id}/prompts`)).body.prompts)).toEqual(byId([a, b]));
    const messages = [
      { role: "user", content: { type: "text", text: "Hello {{name}}" } },
      { role: "assistant", content: { type: "text", text: "Hi!" } },
    ];
    const patched = await world.alice.api.patch(`/providers/${provider.id}/prompts/${a.id}`, {
      prompt: { arguments: [{ name: "name" }], messages },
    });
    expectStatus(patched, 200);
    expect(patched.body.prompt).toEqual({
      ...a,
      arguments: [{ name: "name" }],
      messages,
      updatedAt: patched.body.prompt.updatedAt,
    });
    expect(await versionOf(provider.id)).toBe(4);
    expectNoContent(await world.alice.api.delete(`/providers/${provider.id}/prompts/${a.id}`));
    expect(await versionOf(provider.id)).toBe(5);
    expectProblem(await world.alice.api.get(`/providers/${provider.id}/prompts/${a.id}`), 404, "NOT_FOUND");
    expect((await world.alice.api.get(`/providers/${provider.id}/prompts`)).body).toEqual({ prompts: [b] });
  });

  it.each([
    ["name missing", { name: undefined }, "prompt.name"],
    ["arguments not an array", { arguments: { name: "x" } }, "prompt.arguments"],
    ["argument without a name", { arguments: [{ description: "x" }] }, "prompt.arguments[0].name"],
    ["duplicate argument names", { arguments: [{ name: "a" }, { name: "a" }] }, "prompt.arguments[1].name"],
    [
      "message role system",
      { messages: [{ role: "system", content: { type: "text", text: "x" } }] },
      "prompt.messages[0].role",
    ],
    [
      "message content not text",
      { messages: [{ role: "user", content: { type: "image", text: "x" } }] },
      "prompt.messages[0].content.type",
    ],
    ["unknown field", { template: "x" }, "prompt.template"],
  ])("%s answers 400 at %s", async (_label, fields, path) => {
    const provider = await createProvider(world.alice.api);
    const res = await world.alice.api.post(`/providers/${provider.id}/prompts`, { prompt: promptWrite(fields) });
    expect(expectInvalid(res)).toEqual([path]);
  });

  it("prompt names are unique per provider; deleting a prompt a server uses answers 409 FAILED_PRECONDITION", async () => {
    const provider = await createProvider(world.alice.api);
    const prompt = await createPrompt(world.alice.api, provider.id);
    expectProblem(
      await world.alice.api.post(`/providers/${provider.id}/prompts`, { prompt: promptWrite({ name: prompt.name }) }),
      409,
      "ALREADY_EXISTS",
    );
    const other = await createProvider(world.alice.api);
    await createPrompt(world.alice.api, other.id, { name: prompt.name });
    const server = await createServer(world.alice.api, { prompts: [{ id: prompt.id }] });
    const body = expectProblem(
      await world.alice.api.delete(`/providers/${provider.id}/prompts/${prompt.id}`),
      409,
      "FAILED_PRECONDITION",
    );
    expect(body.references).toEqual([server.id]);
    expectStatus(await world.alice.api.get(`/providers/${provider.id}/prompts/${prompt.id}`), 200);
  });

  it("a prompt is reached only through its own provider; malformed ids answer 400", async () => {
    const p1 = await createProvider(world.alice.api);
    const p2 = await createProvider(world.alice.api);
    const prompt = await createPrompt(world.alice.api, p1.id);
    expectProblem(await world.alice.api.get(`/providers/${p2.id}/prompts/${prompt.id}`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.get(`/providers/${p1.id}/prompts/${unknownId()}`), 404, "NOT_FOUND");
    expect(
      expectInvalid(await world.alice.api.patch(`/providers/${p1.id}/prompts/bad`, { prompt: { name: "x" } })),
    ).toEqual(["promptID"]);
  });
});

describe("resources", () => {
  it("POST /providers/{id}/resources answers 201 with Location and the full resource", async () => {
    const provider = await createProvider(world.alice.api);
    const write = resourceWrite({
      description: "the readme",
      annotations: { audience: ["user", "assistant"], priority: 1, lastModified: "2025-01-02T03:04:05Z" },
    });
    const res = await world.alice.api.post(`/providers/${provider.id}/resources`, { resource: write });
    const resource = res.body.resource;
    expectCreated(res, `/providers/${provider.id}/resources/${resource.id}`);
    expect(resource).toEqual({
      ...write,
      id: resource.id,
      providerID: provider.id,
      createdAt: resource.createdAt,
      updatedAt: resource.createdAt,
    });
    expect(resource.createdAt).toMatch(TIMESTAMP);
    expect(await versionOf(provider.id)).toBe(2);
  });

  it("defaults: empty description and mimeType, size 0, empty annotations", async () => {
    const provider = await createProvider(world.alice.api);
    const res = await world.alice.api.post(`/providers/${provider.id}/resources`, {
      resource: { name: "Bare resource", uri: "https://example.com/r" },
    });
    expectStatus(res, 201);
    expect(res.body.resource).toMatchObject({ description: "", mimeType: "", size: 0, annotations: {} });
  });

  it("GET one and the list; PATCH; DELETE", async () => {
    const provider = await createProvider(world.alice.api);
    const a = await createResource(world.alice.api, provider.id);
    const b = await createResource(world.alice.api, provider.id);
    expect(byId((await world.alice.api.get(`/providers/${provider.id}/resources`)).body.resources)).toEqual(
      byId([a, b]),
    );
    expect((await world.alice.api.get(`/providers/${provider.id}/resources/${b.id}`)).body).toEqual({ resource: b });
    const patched = await world.alice.api.patch(`/providers/${provider.id}/resources/${b.id}`, {
      resource: { mimeType: "application/json; charset=utf-8", size: 0 },
    });
    expectStatus(patched, 200);
    expect(patched.body.resource).toEqual({
      ...b,
      mimeType: "application/json; charset=utf-8",
      size: 0,
      updatedAt: patched.body.resource.updatedAt,
    });
    expect(await versionOf(provider.id)).toBe(4);
    expectNoContent(await world.alice.api.delete(`/providers/${provider.id}/resources/${a.id}`));
    expect((await world.alice.api.get(`/providers/${provider.id}/resources`)).body).toEqual({
      resources: [patched.body.resource],
    });
    expect(await versionOf(provider.id)).toBe(5);
  });

  it.each([
    ["uri missing", { uri: undefined }, "resource.uri"],
    ["uri not http(s)", { uri: "file:///etc/passwd" }, "resource.uri"],
    ["size negative", { size: -1 }, "resource.size"],
    ["size fractional", { size: 1.5 }, "resource.size"],
    ["mimeType not a media type", { mimeType: "markdown" }, "resource.mimeType"],
    ["priority above 1", { annotations: { priority: 2 } }, "resource.annotations.priority"],
    ["audience unknown", { annotations: { audience: ["robot"] } }, "resource.annotations.audience[0]"],
    [
      "lastModified not a date-time",
      { annotations: { lastModified: "yesterday" } },
      "resource.annotations.lastModified",
    ],
    ["unknown field", { url: "https://x.example" }, "resource.url"],
  ])("%s answers 400 at %s", async (_label, fields, path) => {
    const provider = await createProvider(world.alice.api);
    const res = await world.alice.api.post(`/providers/${provider.id}/resources`, { resource: resourceWrite(fields) });
    expect(expectInvalid(res)).toEqual([path]);
  });

  it("resource names are unique per provider; deleting a resource a server uses answers 409 FAILED_PRECONDITION", async () => {
    const provider = await createProvider(world.alice.api);
    const resource = await createResource(world.alice.api, provider.id);
    expectProblem(
      await world.alice.api.post(`/providers/${provider.id}/resources`, {
        resource: resourceWrite({ name: resource.name }),
      }),
      409,
      "ALREADY_EXISTS",
    );
    const server = await createServer(world.alice.api, { resources: [{ id: resource.id }] });
    const body = expectProblem(
      await world.alice.api.delete(`/providers/${provider.id}/resources/${resource.id}`),
      409,
      "FAILED_PRECONDITION",
    );
    expect(body.references).toEqual([server.id]);
    expectStatus(await world.alice.api.get(`/providers/${provider.id}/resources/${resource.id}`), 200);
  });
});
