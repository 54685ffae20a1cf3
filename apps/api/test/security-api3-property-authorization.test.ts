import { describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import { expectInvalid, expectStatus } from "./support/problems.js";
import {
  createProvider,
  createServer,
  createToken,
  createTool,
  createVariable,
  fetchRecord,
  providerWrite,
  toolWrite,
  unknownId,
} from "./support/records.js";

// OWASP API3:2023 Broken Object Property Level Authorization: mass assignment (output-only and unknown fields
// in writes) and excessive data exposure (secrets in reads). The response schemas are closed (every answer of
// the suite is validated against the OpenAPI document, so an extra field such as a leaked clientSecret fails
// any test), and the harness fails any answer that repeats a planted secret. Here: the attacks one by one.

const world = serviceForFile({ alice: "alice", bob: "bob" });

describe("output-only fields in a write are ignored, never applied", () => {
  it("a provider create cannot choose its id, times, version, secretPrefix or tools", async () => {
    const victim = await createProvider(world.bob.api);
    const res = await world.alice.api.post("/providers", {
      provider: providerWrite({
        id: victim.id,
        createdAt: "2000-01-01T00:00:00.000Z",
        updatedAt: "2000-01-01T00:00:00.000Z",
        version: 99,
        secretPrefix: "ANYTHING_I_WANT",
        tools: [{ id: unknownId(), name: "injected" }],
      }),
    });
    expectStatus(res, 201);
    const p = res.body.provider;
    expect(p.id).not.toBe(victim.id);
    expect(p.version).toBe(1);
    expect(p.secretPrefix).toBe("API_EXAMPLE_COM");
    expect(p.tools).toEqual([]);
    expect(p.createdAt).not.toBe("2000-01-01T00:00:00.000Z");
    // bob's provider is untouched.
    expect(await fetchRecord(world.bob.api, `/providers/${victim.id}`, "provider")).toEqual(victim);
  });

  it("a PATCH cannot move a record to another id or rewrite its secretPrefix", async () => {
    const provider = await createProvider(world.alice.api);
    const res = await world.alice.api.patch(`/providers/${provider.id}`, {
      provider: { id: unknownId(), secretPrefix: "STOLEN", description: "patched" },
    });
    expectStatus(res, 200);
    expect(res.body.provider).toMatchObject({
      id: provider.id,
      secretPrefix: provider.secretPrefix,
      description: "patched",
    });
  });

  it("a tool create cannot attach itself to another provider through providerID", async () => {
    const mine = await createProvider(world.alice.api);
    const theirs = await createProvider(world.bob.api);
    const res = await world.alice.api.post(`/providers/${mine.id}/tools`, {
      tool: toolWrite({ providerID: theirs.id }),
    });
    expectStatus(res, 201);
    expect(res.body.tool.providerID).toBe(mine.id);
    expect((await world.bob.api.get(`/providers/${theirs.id}/tools`)).body.tools).toEqual([]);
  });

  it("a server token create cannot choose its value, server or id", async () => {
    const server = await createServer(world.alice.api);
    const other = await createServer(world.alice.api);
    const chosen = "mcps_chosenByTheAttacker000000000000000";
    const res = await world.alice.api.post(`/servers/${server.id}/tokens`, {
      token: { name: "mine", value: chosen, serverID: other.id, id: unknownId() },
    });
    expectStatus(res, 201);
    expect(res.body.token.value).not.toBe(chosen);
    expect(res.body.token.serverID).toBe(server.id);
    expect((await world.alice.api.get(`/servers/${other.id}/tokens`)).body.tokens).toEqual([]);
  });
});

describe("fields nobody may write are refused by name (400)", () => {
  it.each([
    ["/providers", { provider: providerWrite({ tenant: "bob" }) }, "provider.tenant"],
    ["/providers", { provider: providerWrite({ owner: "bob" }) }, "provider.owner"],
    ["/servers", { server: { name: "s", tenant: "bob" } }, "server.tenant"],
    ["/servers", { server: { name: "s", isAdmin: true } }, "server.isAdmin"],
    ["/variables", { variable: { type: "ENV", name: "X_TENANT", value: "v", tenant: "bob" } }, "variable.tenant"],
  ])("POST %s with %j", async (path, body, field) => {
    expect(expectInvalid(await world.alice.api.post(path, body))).toContain(field);
  });

  it("a token's stored hash, and a variable's type or name on PATCH (a SECRET cannot be turned into ENV)", async () => {
    const server = await createServer(world.alice.api);
    expect(
      expectInvalid(
        await world.alice.api.post(`/servers/${server.id}/tokens`, { token: { name: "t", valueHash: "00" } }),
      ),
    ).toContain("token.valueHash");
    const secret = await createVariable(world.alice.api, { type: "SECRET", value: "hidden-value-1234567890" });
    const res = await world.alice.api.patch(`/variables/${secret.id}`, { variable: { type: "ENV", value: "x" } });
    expect(expectInvalid(res)).toContain("variable.type");
    expect((await fetchRecord(world.alice.api, `/variables/${secret.id}`, "variable")).value).toBe("***");
  });
});

describe("secrets are never read back", () => {
  it("clientSecret is absent from the provider, its list, and every server that embeds it", async () => {
    const clientSecret = "api3-client-secret-0123456789abcdef";
    const provider = await createProvider(world.alice.api, {
      oauth2Config: {
        clientID: "id",
        clientSecret,
        authURL: "https://a.example/auth",
        tokenURL: "https://a.example/token",
      },
    });
    await createTool(world.alice.api, provider.id);
    const server = await createServer(world.alice.api, { providers: [{ id: provider.id }] });
    for (const path of [`/providers/${provider.id}`, "/providers", `/servers/${server.id}`, "/servers"]) {
      const res = await world.alice.api.get(path);
      expectStatus(res, 200);
      expect(res.text).not.toContain(clientSecret);
      expect(res.text).not.toContain("clientSecret");
    }
  });

  it('SECRET values read as "***" everywhere; server token values only in their create answer', async () => {
    const value = "api3-secret-variable-fedcba9876543210";
    const variable = await createVariable(world.alice.api, { type: "SECRET", value });
    expect(variable.value).toBe("***");
    for (const path of [`/variables/${variable.id}`, "/variables"])
      expect((await world.alice.api.get(path)).text).not.toContain(value);
    const server = await createServer(world.alice.api);
    const token = await createToken(world.alice.api, server.id);
    expect(token.value).toMatch(/^mcps_/);
    for (const path of [`/servers/${server.id}/tokens`, `/servers/${server.id}/tokens/${token.id}`]) {
      const res = await world.alice.api.get(path);
      expect(res.text).not.toContain(token.value);
      expect(res.text).not.toContain('"value"');
    }
  });
});
