import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { expectNoContent, expectProblem, expectStatus } from "./support/problems.js";
import {
  createProvider,
  createServer,
  createToken,
  createTool,
  createVariable,
  providerWrite,
  serverWrite,
  toolWrite,
  variableWrite,
} from "./support/records.js";

// docs/api-rules.md §11 and §2: per-tenant quotas keep lists bounded; a create over quota answers 429
// RESOURCE_EXHAUSTED. The service here runs with small quotas (config `quotas`).

let svc: TestService;
let alice: Tenant;
let bob: Tenant;

beforeAll(async () => {
  svc = await startTestService({
    quotas: {
      serversPerTenant: 2,
      variablesPerTenant: 3,
      providersPerTenant: 2,
      toolsPerProvider: 2,
      tokensPerServer: 2,
    },
  });
  alice = await svc.tenant("alice");
  bob = await svc.tenant("bob");
});
afterAll(() => svc?.close());

describe("per-tenant quotas", () => {
  it("servers: the create over quota answers 429; other tenants are unaffected; a delete frees room", async () => {
    const first = await createServer(alice.api);
    await createServer(alice.api);
    const over = await alice.api.post("/servers", { server: serverWrite() });
    expectProblem(over, 429, "RESOURCE_EXHAUSTED");
    expect((await alice.api.get("/servers")).body.servers).toHaveLength(2);
    await createServer(bob.api);
    expectNoContent(await alice.api.delete(`/servers/${first.id}`));
    await createServer(alice.api);
  });

  it("variables", async () => {
    for (let i = 0; i < 3; i++) await createVariable(alice.api);
    expectProblem(await alice.api.post("/variables", { variable: variableWrite() }), 429, "RESOURCE_EXHAUSTED");
    expect((await alice.api.get("/variables")).body.variables).toHaveLength(3);
    await createVariable(bob.api);
  });

  it("providers (counting the tenant's own only, not PUBLIC ones of others)", async () => {
    await createProvider(bob.api, { visibilityType: "PUBLIC" });
    await createProvider(bob.api, { visibilityType: "PUBLIC" });
    const p = await createProvider(alice.api);
    await createProvider(alice.api);
    expectProblem(await alice.api.post("/providers", { provider: providerWrite() }), 429, "RESOURCE_EXHAUSTED");
    expectProblem(await bob.api.post("/providers", { provider: providerWrite() }), 429, "RESOURCE_EXHAUSTED");
    expectNoContent(await alice.api.delete(`/providers/${p.id}`));
    await createProvider(alice.api);
  });

  it("tools per provider", async () => {
    const carol = await svc.tenant("carol");
    const provider = await createProvider(carol.api);
    await createTool(carol.api, provider.id);
    const second = await createTool(carol.api, provider.id);
    expectProblem(
      await carol.api.post(`/providers/${provider.id}/tools`, { tool: toolWrite() }),
      429,
      "RESOURCE_EXHAUSTED",
    );
    expect((await carol.api.get(`/providers/${provider.id}`)).body.provider.version).toBe(3);
    const other = await createProvider(carol.api);
    await createTool(carol.api, other.id);
    expectNoContent(await carol.api.delete(`/providers/${provider.id}/tools/${second.id}`));
    await createTool(carol.api, provider.id);
  });

  it("concurrent creates never exceed a quota", async () => {
    const erin = await svc.tenant("erin");
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => erin.api.post("/servers", { server: serverWrite() })),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(2);
    for (const r of answers.filter((a) => a.status !== 201)) expectProblem(r, 429, "RESOURCE_EXHAUSTED");
    expect((await erin.api.get("/servers")).body.servers).toHaveLength(2);
  });

  it("tokens per server", async () => {
    const dave = await svc.tenant("dave");
    const server = await createServer(dave.api);
    const first = await createToken(dave.api, server.id);
    await createToken(dave.api, server.id);
    expectProblem(
      await dave.api.post(`/servers/${server.id}/tokens`, { token: { name: "third" } }),
      429,
      "RESOURCE_EXHAUSTED",
    );
    expect((await dave.api.get(`/servers/${server.id}/tokens`)).body.tokens).toHaveLength(2);
    expectNoContent(await dave.api.delete(`/servers/${server.id}/tokens/${first.id}`));
    expectStatus(await dave.api.post(`/servers/${server.id}/tokens`, { token: { name: "third" } }), 201);
  });
});
