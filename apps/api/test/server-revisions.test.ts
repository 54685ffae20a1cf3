import { REVISIONS_KEPT } from "@mcpsm/domain/storage";
import { describe, expect, it } from "vitest";
import type { Client } from "./support/harness.js";
import { serviceForFile } from "./support/file-service.js";
import { expectProblem } from "./support/problems.js";
import { createProvider, createServer, createTool, uniq } from "./support/records.js";

// docs/api-rules.md §21, server revisions: a revision per change of a server's content (its own writes, its
// members, and a change of a provider tool it uses), none for a refused write; listed newest first in pages;
// each the export document at its version; a diff per field and per tool plus a unified text; a restore as a
// new version under the §7 version rules, refused whole (409 listing each) when a tool it names is gone;
// the last REVISIONS_KEPT kept; another tenant sees 404. Runs on memory and, with TEST_DATABASE_URL, PostgreSQL.

const world = serviceForFile({ alice: "revisions" });

// biome-ignore lint/suspicious/noExplicitAny: answers are read as JSON
type Json = any;

const revisions = async (api: Client, serverId: string, query = ""): Promise<Json> => {
  const res = await api.get(`/servers/${serverId}/revisions${query}`);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.body;
};
const versions = async (api: Client, serverId: string) =>
  (await revisions(api, serverId, "?limit=1000")).revisions.map((r: Json) => r.version);
const patch = (api: Client, serverId: string, server: Json, headers?: Record<string, string>) =>
  api.patch(`/servers/${serverId}`, { server }, headers);
const restore = (api: Client, serverId: string, version: number, body: Json = { server: {} }, query = "") =>
  api.post(`/servers/${serverId}/revisions/${version}/restore${query}`, body);

/** A provider with three tools and a server using the first two. */
const setup = async (api: Client) => {
  const provider = await createProvider(api);
  const tools = [
    await createTool(api, provider.id),
    await createTool(api, provider.id),
    await createTool(api, provider.id),
  ] as const;
  const server = await createServer(api, {
    description: "first",
    providers: [{ id: provider.id, tools: [{ id: tools[0].id }, { id: tools[1].id }] }],
  });
  return { provider, tools, server };
};

describe("a revision per change", () => {
  it("create, PATCH, a member route and a change of a used tool each record one; refused writes none", async () => {
    const { provider, tools, server } = await setup(world.alice.api);
    expect(await versions(world.alice.api, server.id)).toEqual([1]);

    expect((await patch(world.alice.api, server.id, { name: `Renamed ${uniq()}` })).status).toBe(200);
    const added = await world.alice.api.post(`/servers/${server.id}/tools`, {
      tool: { providerID: provider.id, toolID: tools[2].id },
    });
    expect(added.status, added.text).toBe(201);
    // A tool the server uses changes: the server's content changed, so its version moves and a revision is kept.
    const title = `Title ${uniq()}`;
    expect(
      (await world.alice.api.patch(`/providers/${provider.id}/tools/${tools[0].id}`, { tool: { title } })).status,
    ).toBe(200);
    const page = await revisions(world.alice.api, server.id);
    expect(page.revisions.map((r: Json) => r.version)).toEqual([4, 3, 2, 1]);
    expect(page.matchCount).toBe(4);
    expect(page.revisions[3].summary).toBe("created");
    expect(page.revisions[2].summary).toMatch(/^changed name/);
    expect(page.revisions[1].summary).toMatch(/tools \+1/);
    expect(page.revisions[0].summary).toContain(`tool '${tools[0].name}'`);
    expect(page.revisions[0].actor.sub).toBe(world.alice.id);
    expect(page.revisions[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const current = await world.alice.api.get(`/servers/${server.id}`);
    expect(current.body.server.version).toBe(4);
    expect(current.headers.get("etag")).toBe('W/"4"');

    // Refused writes: a stale version, a bad field, a tool of the server renamed onto another's name.
    expectProblem(await patch(world.alice.api, server.id, { name: "x", version: 1 }), 409, "ABORTED");
    expectProblem(await patch(world.alice.api, server.id, { name: "" }), 400, "INVALID_ARGUMENT");
    expectProblem(
      await patch(world.alice.api, server.id, { name: "y" }, { "if-match": 'W/"2"' }),
      412,
      "PRECONDITION_FAILED",
    );
    // A change of a tool the server does not use, and a PATCH that changes nothing, move nothing.
    const other = await createTool(world.alice.api, provider.id);
    await world.alice.api.patch(`/providers/${provider.id}/tools/${other.id}`, { tool: { title: "unused" } });
    expect((await patch(world.alice.api, server.id, { description: "first" })).status).toBe(200);
    expect(await versions(world.alice.api, server.id)).toEqual([4, 3, 2, 1]);
  });

  it("each revision is the export document at its version", async () => {
    const { server } = await setup(world.alice.api);
    const v1 = (await world.alice.api.get(`/servers/${server.id}/export`)).body;
    await patch(world.alice.api, server.id, { description: "second" });
    const v2 = (await world.alice.api.get(`/servers/${server.id}/export`)).body;
    expect((await world.alice.api.get(`/servers/${server.id}/revisions/1`)).body).toEqual(v1);
    expect((await world.alice.api.get(`/servers/${server.id}/revisions/2`)).body).toEqual(v2);
    expectProblem(await world.alice.api.get(`/servers/${server.id}/revisions/3`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.get(`/servers/${server.id}/revisions/0`), 400, "INVALID_ARGUMENT");
    expectProblem(await world.alice.api.get(`/servers/${server.id}/revisions/one`), 400, "INVALID_ARGUMENT");
  });

  it("pages newest first with limit and nextToken (§11); a foreign token is refused", async () => {
    const { server } = await setup(world.alice.api);
    for (let i = 0; i < 4; i++) await patch(world.alice.api, server.id, { description: `d${i}` });
    const first = await revisions(world.alice.api, server.id, "?limit=2");
    expect(first.revisions.map((r: Json) => r.version)).toEqual([5, 4]);
    const second = await revisions(world.alice.api, server.id, `?limit=2&token=${encodeURIComponent(first.nextToken)}`);
    expect(second.revisions.map((r: Json) => r.version)).toEqual([3, 2]);
    const last = await revisions(world.alice.api, server.id, `?limit=2&token=${encodeURIComponent(second.nextToken)}`);
    expect(last.revisions.map((r: Json) => r.version)).toEqual([1]);
    expect(last.nextToken).toBe("");
    const elsewhere = await setup(world.alice.api);
    expectProblem(
      await world.alice.api.get(
        `/servers/${elsewhere.server.id}/revisions?token=${encodeURIComponent(first.nextToken)}`,
      ),
      400,
      "INVALID_ARGUMENT",
    );
    expectProblem(await world.alice.api.get(`/servers/${server.id}/revisions?limit=0`), 400, "INVALID_ARGUMENT");
  });

  it("concurrent writers: every version has exactly one revision", async () => {
    const { server } = await setup(world.alice.api);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => patch(world.alice.api, server.id, { description: `writer ${i}` })),
    );
    const applied = answers.filter((res) => res.status === 200).length;
    // Unconditional writes retry a lost race; a few may still give up with 409 ABORTED, never store half.
    for (const res of answers) expect([200, 409]).toContain(res.status);
    const kept = await versions(world.alice.api, server.id);
    const now = (await world.alice.api.get(`/servers/${server.id}`)).body.server.version;
    expect(kept).toEqual(Array.from({ length: now }, (_, i) => now - i));
    expect(now).toBeLessThanOrEqual(1 + applied);
  });

  it(`keeps the last ${REVISIONS_KEPT}`, async () => {
    const { server } = await setup(world.alice.api);
    for (let i = 0; i < REVISIONS_KEPT + 4; i++) await patch(world.alice.api, server.id, { description: `n${i}` });
    const kept = await versions(world.alice.api, server.id);
    expect(kept).toHaveLength(REVISIONS_KEPT);
    expect(kept[0]).toBe(REVISIONS_KEPT + 5);
    expect(kept.at(-1)).toBe(6);
    expectProblem(await world.alice.api.get(`/servers/${server.id}/revisions/5`), 404, "NOT_FOUND");
  }, 120_000);
});

describe("diff", () => {
  it("per field, per tool, and as a unified text", async () => {
    const { provider, tools, server } = await setup(world.alice.api);
    await patch(world.alice.api, server.id, {
      description: "second",
      providers: [{ id: provider.id, tools: [{ id: tools[0].id }, { id: tools[2].id }] }],
    });
    await world.alice.api.patch(`/providers/${provider.id}/tools/${tools[0].id}`, {
      tool: { description: "new words" },
    });
    const res = await world.alice.api.get(`/servers/${server.id}/revisions/3/diff?against=1`);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const diff = res.body;
    expect(diff).toMatchObject({ version: 3, against: 1 });
    expect(diff.fields).toContainEqual({ path: "server.description", before: "first", after: "second" });
    const providerChange = diff.members.find((m: Json) => m.kind === "provider");
    expect(providerChange).toMatchObject({ name: provider.name, change: "changed" });
    const byName = Object.fromEntries(providerChange.members.map((m: Json) => [m.name, m]));
    expect(byName[tools[1].name]).toMatchObject({ kind: "tool", change: "removed" });
    expect(byName[tools[2].name]).toMatchObject({ kind: "tool", change: "added" });
    expect(byName[tools[0].name]).toMatchObject({ kind: "tool", change: "changed" });
    expect(byName[tools[0].name].fields).toContainEqual({
      path: "description",
      before: tools[0].description,
      after: "new words",
    });
    expect(diff.text).toContain('-    "description": "first"');
    expect(diff.text).toContain('+    "description": "second"');
    // Without `against`, the version before; version 1 against nothing: everything added.
    expect((await world.alice.api.get(`/servers/${server.id}/revisions/3/diff`)).body.against).toBe(2);
    const first = (await world.alice.api.get(`/servers/${server.id}/revisions/1/diff`)).body;
    expect(first.against).toBe(0);
    expect(first.members.map((m: Json) => m.change)).toEqual(["added"]);
    expectProblem(await world.alice.api.get(`/servers/${server.id}/revisions/3/diff?against=9`), 404, "NOT_FOUND");
    expectProblem(
      await world.alice.api.get(`/servers/${server.id}/revisions/3/diff?against=x`),
      400,
      "INVALID_ARGUMENT",
    );
  });
});

describe("restore", () => {
  it("makes a revision's content current again as a new version; a dry run stores nothing", async () => {
    const { provider, tools, server } = await setup(world.alice.api);
    await patch(world.alice.api, server.id, {
      name: `Other ${uniq()}`,
      description: "second",
      providers: [{ id: provider.id, tools: [{ id: tools[2].id }] }],
    });
    const preview = await restore(world.alice.api, server.id, 1, { server: {} }, "?dryRun=true");
    expect(preview.status, preview.text.slice(0, 300)).toBe(200);
    expect(preview.body.server).toMatchObject({ name: server.name, description: "first", version: 3 });
    expect(preview.body.diff.fields).toContainEqual({ path: "server.description", before: "second", after: "first" });
    expect((await world.alice.api.get(`/servers/${server.id}`)).body.server.version).toBe(2);
    expect(await versions(world.alice.api, server.id)).toEqual([2, 1]);

    const res = await restore(world.alice.api, server.id, 1, { server: { version: 2 } });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.headers.get("etag")).toBe('W/"3"');
    const now = (await world.alice.api.get(`/servers/${server.id}`)).body.server;
    expect(now).toMatchObject({ name: server.name, description: "first", version: 3 });
    expect(now.providers[0].tools.map((t: Json) => t.id)).toEqual([tools[0].id, tools[1].id]);
    const page = await revisions(world.alice.api, server.id);
    expect(page.revisions[0]).toMatchObject({ version: 3, summary: "restored version 1" });
    const doc = (await world.alice.api.get(`/servers/${server.id}/revisions/3`)).body;
    expect(doc).toEqual((await world.alice.api.get(`/servers/${server.id}/revisions/1`)).body);
  });

  it("a tool the revision names that is gone: 409 listing each, nothing changed", async () => {
    const { provider, tools, server } = await setup(world.alice.api);
    await patch(world.alice.api, server.id, { providers: [{ id: provider.id, tools: [{ id: tools[2].id }] }] });
    expect((await world.alice.api.delete(`/providers/${provider.id}/tools/${tools[0].id}`)).status).toBe(204);
    expect((await world.alice.api.delete(`/providers/${provider.id}/tools/${tools[1].id}`)).status).toBe(204);
    const res = await restore(world.alice.api, server.id, 1);
    expectProblem(res, 409, "FAILED_PRECONDITION");
    expect(res.body.detail).toContain(tools[0].name);
    expect(res.body.detail).toContain(tools[1].name);
    expect([...res.body.references].sort()).toEqual([tools[0].id, tools[1].id].sort());
    expect((await world.alice.api.get(`/servers/${server.id}`)).body.server.version).toBe(2);
    expect(await versions(world.alice.api, server.id)).toEqual([2, 1]);
  });

  it("follows the version rules of §7: a stale version 409 ABORTED, a stale If-Match 412", async () => {
    const { server } = await setup(world.alice.api);
    await patch(world.alice.api, server.id, { description: "second" });
    expectProblem(await restore(world.alice.api, server.id, 1, { server: { version: 1 } }), 409, "ABORTED");
    expectProblem(
      await world.alice.api.request("POST", `/servers/${server.id}/revisions/1/restore`, {
        body: { server: {} },
        headers: { "if-match": 'W/"1"' },
      }),
      412,
      "PRECONDITION_FAILED",
    );
    expectProblem(await restore(world.alice.api, server.id, 1, { server: { nope: 1 } }), 400, "INVALID_ARGUMENT");
    expectProblem(await restore(world.alice.api, server.id, 7), 404, "NOT_FOUND");
    expect(await versions(world.alice.api, server.id)).toEqual([2, 1]);
  });

  it("restore racing a write at the same version: exactly one applies, the other 409 ABORTED", async () => {
    const { server } = await setup(world.alice.api);
    await patch(world.alice.api, server.id, { description: "second" });
    const [restored, written] = await Promise.all([
      restore(world.alice.api, server.id, 1, { server: { version: 2 } }),
      patch(world.alice.api, server.id, { description: "racing", version: 2 }),
    ]);
    expect([restored.status, written.status].sort()).toEqual([200, 409]);
    const loser = restored.status === 409 ? restored : written;
    expect(loser.body.code).toBe("ABORTED");
    expect(await versions(world.alice.api, server.id)).toEqual([3, 2, 1]);
    const description = (await world.alice.api.get(`/servers/${server.id}`)).body.server.description;
    expect(description).toBe(restored.status === 200 ? "first" : "racing");
  });
});

describe("another tenant", () => {
  it("answers 404 on every revision route", async () => {
    const { server } = await setup(world.alice.api);
    const bob = await world.svc.tenant("revisions-other");
    expectProblem(await bob.api.get(`/servers/${server.id}/revisions`), 404, "NOT_FOUND");
    expectProblem(await bob.api.get(`/servers/${server.id}/revisions/1`), 404, "NOT_FOUND");
    expectProblem(await bob.api.get(`/servers/${server.id}/revisions/1/diff`), 404, "NOT_FOUND");
    expectProblem(await restore(bob.api, server.id, 1), 404, "NOT_FOUND");
    expect(await versions(world.alice.api, server.id)).toEqual([1]);
  });

  it("a PUBLIC provider's owner changing a tool records a revision in the user's server without naming the owner", async () => {
    const owner = await world.svc.tenant("revisions-public");
    const provider = await createProvider(owner.api, { visibilityType: "PUBLIC" });
    const tool = await createTool(owner.api, provider.id);
    const server = await createServer(world.alice.api, { providers: [{ id: provider.id, tools: [{ id: tool.id }] }] });
    await owner.api.patch(`/providers/${provider.id}/tools/${tool.id}`, { tool: { title: "changed upstream" } });
    const page = await revisions(world.alice.api, server.id);
    expect(page.revisions.map((r: Json) => r.version)).toEqual([2, 1]);
    expect(page.revisions[0].actor).toEqual({ sub: "", clientId: "" });
    expect(page.revisions[0].summary).toContain("by the provider's owner");
  });
});
