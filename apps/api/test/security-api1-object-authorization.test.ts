import { ALL_SCOPES } from "@mcpsm/domain";
import { beforeAll, describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import { expectProblem, expectStatus } from "./support/problems.js";
import { createServer, createVariable } from "./support/records.js";
import { makeRouteFixture, type RouteFixture } from "./support/route-fixture.js";

// OWASP API1:2023 Broken Object Level Authorization. tenancy.test.ts already sends every route with an id
// (one request per route) with another tenant's ids (404, nothing changed, the same 404 as a missing id),
// lists, foreign ids inside server writes and association bodies, and another tenant's writes to a PUBLIC
// provider (403). Here: mixing one's own parent with another tenant's child id (and the reverse), guessing
// ids, and tenant names that look alike.

const world = serviceForFile({ alice: "alice", mallory: "mallory" });
let theirs: RouteFixture;
let mine: RouteFixture;

beforeAll(async () => {
  theirs = await makeRouteFixture(world.alice.api);
  mine = await makeRouteFixture(world.mallory.api);
});

describe("a parent of one's own with another tenant's child id (and the reverse) answers 404", () => {
  const cases = (): ReadonlyArray<readonly [string, string]> => [
    ["GET", `/providers/${mine.P}/tools/${theirs.T}`],
    ["PATCH", `/providers/${mine.P}/tools/${theirs.T}`],
    ["DELETE", `/providers/${mine.P}/tools/${theirs.T}`],
    ["GET", `/providers/${theirs.P}/tools/${mine.T}`],
    ["GET", `/providers/${mine.P}/prompts/${theirs.Pr}`],
    ["PATCH", `/providers/${mine.P}/prompts/${theirs.Pr}`],
    ["DELETE", `/providers/${mine.P}/prompts/${theirs.Pr}`],
    ["GET", `/providers/${mine.P}/resources/${theirs.R}`],
    ["PATCH", `/providers/${mine.P}/resources/${theirs.R}`],
    ["DELETE", `/providers/${mine.P}/resources/${theirs.R}`],
    ["GET", `/servers/${mine.S}/tokens/${theirs.K}`],
    ["DELETE", `/servers/${mine.S}/tokens/${theirs.K}`],
    ["GET", `/servers/${theirs.S}/tokens/${mine.K}`],
    ["DELETE", `/servers/${mine.S}/tools/${theirs.T}`],
    ["DELETE", `/servers/${mine.S}/resources/${theirs.R}`],
    ["DELETE", `/providers/${mine.P}/connections/${theirs.C}`],
    ["DELETE", `/providers/${theirs.P}/connections/${theirs.C}`],
    ["DELETE", `/servers/${mine.S}/prompts/${theirs.Pr}`],
  ];
  const bodies: Record<string, unknown> = {
    tools: { tool: { title: "hijacked" } },
    prompts: { prompt: { description: "hijacked" } },
    resources: { resource: { description: "hijacked" } },
  };

  it("16 crossed paths, and alice's records are unchanged afterwards", async () => {
    const before = [
      (await world.alice.api.get(`/providers/${theirs.P}/tools/${theirs.T}`)).body,
      (await world.alice.api.get(`/providers/${theirs.P}/prompts/${theirs.Pr}`)).body,
      (await world.alice.api.get(`/providers/${theirs.P}/resources/${theirs.R}`)).body,
      (await world.alice.api.get(`/servers/${theirs.S}/tokens`)).body,
    ];
    for (const [method, path] of cases()) {
      const segment = path.split("/")[3] ?? "";
      const body = method === "PATCH" ? bodies[segment] : undefined;
      const res = await world.mallory.api.request(method, path, body === undefined ? {} : { body });
      expectProblem(res, 404, "NOT_FOUND");
    }
    expect([
      (await world.alice.api.get(`/providers/${theirs.P}/tools/${theirs.T}`)).body,
      (await world.alice.api.get(`/providers/${theirs.P}/prompts/${theirs.Pr}`)).body,
      (await world.alice.api.get(`/providers/${theirs.P}/resources/${theirs.R}`)).body,
      (await world.alice.api.get(`/servers/${theirs.S}/tokens`)).body,
    ]).toEqual(before);
  });
});

describe("ids cannot be guessed", () => {
  it("200 ids from consecutive creates are distinct, share no prefix and look uniformly random", async () => {
    const ids: Array<string> = [];
    for (let i = 0; i < 200; i++) ids.push((await createVariable(world.mallory.api)).id);
    expect(new Set(ids).size).toBe(200);
    // Consecutive ids differ in almost every position (a counter or timestamp would share most of them).
    let samePositions = 0;
    for (let i = 1; i < ids.length; i++)
      for (let p = 0; p < 11; p++) if (ids[i]![p] === ids[i - 1]![p]) samePositions++;
    expect(samePositions / ((ids.length - 1) * 11)).toBeLessThan(0.1);
    // Every one of the 62 characters turns up across 2,200 characters.
    expect(new Set(ids.join("")).size).toBeGreaterThan(55);
  });
});

describe("tenants that look alike are different tenants", () => {
  it("case, white space and claim-like spellings of a tenant name see none of its records", async () => {
    const owner = await world.svc.tenant("Acme");
    const server = await createServer(owner.api);
    for (const lookalike of [
      owner.id.toUpperCase(),
      ` ${owner.id}`,
      `${owner.id} `,
      `${owner.id}\u200b`,
      `${owner.id}/`,
      "*",
    ]) {
      const api = world.svc.client(await world.svc.token(lookalike, ALL_SCOPES));
      expectProblem(await api.get(`/servers/${server.id}`), 404, "NOT_FOUND");
      const list = await api.get("/servers");
      expectStatus(list, 200);
      expect(list.body.servers.map((s: { id: string }) => s.id)).not.toContain(server.id);
    }
  });
});
