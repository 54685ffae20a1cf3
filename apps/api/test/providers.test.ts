import { describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import { expectCreated, expectInvalid, expectProblem, expectStatus, ID, TIMESTAMP } from "./support/problems.js";
import { createProvider, createTool, fetchRecord, providerWrite, unknownId } from "./support/records.js";

// Providers: spec §4 (POST/GET /providers, GET/PATCH/DELETE /providers/{id}) and docs/api-rules.md §§6, 7, 9.
// Listing and paging are in pagination.test.ts.

const world = serviceForFile({ alice: "providers" });

const storedProvider = (id: string) => world.svc.inspect((tx) => tx.findProvider(id));

describe("create and read", () => {
  it('POST /providers answers 201 with Location, ETag W/"1" and the defaults', async () => {
    const res = await world.alice.api.post("/providers", {
      provider: { name: " GitHub ", baseURL: "https://api.github.com/v3" },
    });
    const provider = res.body.provider;
    expectCreated(res, `/providers/${provider.id}`);
    expect(res.headers.get("etag")).toBe('W/"1"');
    expect(provider.id).toMatch(ID);
    expect(provider.createdAt).toMatch(TIMESTAMP);
    expect(provider).toEqual({
      id: provider.id,
      createdAt: provider.createdAt,
      updatedAt: provider.createdAt,
      version: 1,
      apiType: "REST",
      visibilityType: "INTERNAL",
      baseURL: "https://api.github.com/v3",
      documentURL: "",
      iconURL: "",
      secretPrefix: "API_GITHUB_COM",
      name: "GitHub",
      description: "",
      tools: [],
    });
    expect("oauth2Config" in provider).toBe(false);
  });

  it("GET /providers/{id} answers 200 with ETag, the record and its tools", async () => {
    const provider = await createProvider(world.alice.api, {
      description: "an API",
      documentURL: "https://docs.example.com",
      iconURL: "https://example.com/icon.png",
      visibilityType: "PUBLIC",
      apiType: "REST",
    });
    const tool = await createTool(world.alice.api, provider.id);
    const res = await world.alice.api.get(`/providers/${provider.id}`);
    expectStatus(res, 200);
    expect(res.headers.get("etag")).toBe('W/"2"');
    expect(res.body).toEqual({
      provider: { ...provider, version: 2, updatedAt: res.body.provider.updatedAt, tools: [tool] },
    });
  });

  it.each([
    ["https://api.github.com/v3", "API_GITHUB_COM"],
    ["https://www.example.com/", "EXAMPLE_COM"],
    ["http://WWW.My-Service.Example.co.uk:8443/base?x=1", "MY_SERVICE_EXAMPLE_CO_UK"],
    ["https://wwwx.example.com", "WWWX_EXAMPLE_COM"],
    ["http://127.0.0.1:9000", "_127_0_0_1"],
  ])("secretPrefix of %s is %s", async (baseURL, prefix) => {
    const provider = await createProvider(world.alice.api, { baseURL });
    expect(provider.secretPrefix).toBe(prefix);
  });

  it("secretPrefix never changes, not even when baseURL moves to another host", async () => {
    const provider = await createProvider(world.alice.api, { baseURL: "https://api.stripe.com" });
    const res = await world.alice.api.patch(`/providers/${provider.id}`, {
      provider: { baseURL: "https://api.other.org/v2" },
    });
    expectStatus(res, 200);
    expect(res.body.provider.baseURL).toBe("https://api.other.org/v2");
    expect(res.body.provider.secretPrefix).toBe("API_STRIPE_COM");
    // A client-sent secretPrefix is output-only and ignored.
    const again = await world.alice.api.patch(`/providers/${provider.id}`, { provider: { secretPrefix: "MINE" } });
    expectStatus(again, 200);
    expect(again.body.provider.secretPrefix).toBe("API_STRIPE_COM");
  });

  it("output-only fields in a write are ignored", async () => {
    const res = await world.alice.api.post("/providers", {
      provider: providerWrite({
        id: "AAAAAAAAAAA",
        createdAt: "2001-01-01T00:00:00.000Z",
        updatedAt: "2001-01-01T00:00:00.000Z",
        version: 77,
        secretPrefix: "CHOSEN",
        tools: [{ name: "injected", method: "GET", path: "/x" }],
      }),
    });
    expectStatus(res, 201);
    expect(res.body.provider).toMatchObject({ version: 1, secretPrefix: "API_EXAMPLE_COM", tools: [] });
    expect(res.body.provider.id).not.toBe("AAAAAAAAAAA");
    expect(res.body.provider.createdAt).not.toBe("2001-01-01T00:00:00.000Z");
  });
});

describe("oauth2Config", () => {
  const config = {
    clientID: "client-1",
    clientSecret: "s3cr3t-value-never-shown",
    authURL: "https://auth.example.com/authorize",
    tokenURL: "https://auth.example.com/token",
  };

  it("is returned without clientSecret, which is stored encrypted", async () => {
    const res = await world.alice.api.post("/providers", { provider: providerWrite({ oauth2Config: config }) });
    expectStatus(res, 201);
    expect(res.body.provider.oauth2Config).toEqual({
      clientID: "client-1",
      authURL: "https://auth.example.com/authorize",
      tokenURL: "https://auth.example.com/token",
    });
    expect(res.text).not.toContain(config.clientSecret);
    const got = await world.alice.api.get(`/providers/${res.body.provider.id}`);
    expect(got.text).not.toContain(config.clientSecret);
    expect(got.body.provider.oauth2Config).toEqual(res.body.provider.oauth2Config);
    const list = await world.alice.api.get(`/providers?nameContains=${encodeURIComponent(res.body.provider.name)}`);
    expect(list.text).not.toContain(config.clientSecret);
    const row = await storedProvider(res.body.provider.id);
    expect(row?.oauth2Config?.clientSecretCipher).toEqual(expect.any(String));
    expect(row?.oauth2Config?.clientSecretCipher).not.toContain(config.clientSecret);
  });

  it("a PATCH whose oauth2Config omits clientSecret keeps the stored one", async () => {
    const provider = await createProvider(world.alice.api, { oauth2Config: config });
    const before = await storedProvider(provider.id);
    const res = await world.alice.api.patch(`/providers/${provider.id}`, {
      provider: { oauth2Config: { clientID: "client-2", tokenURL: "https://auth.example.com/token2" } },
    });
    expectStatus(res, 200);
    expect(res.body.provider.oauth2Config).toEqual({
      clientID: "client-2",
      authURL: "https://auth.example.com/authorize",
      tokenURL: "https://auth.example.com/token2",
    });
    expect(res.body.provider.version).toBe(2);
    const after = await storedProvider(provider.id);
    expect(after?.oauth2Config?.clientSecretCipher).toBe(before?.oauth2Config?.clientSecretCipher);
    // A PATCH of another field keeps the whole config.
    await world.alice.api.patch(`/providers/${provider.id}`, { provider: { description: "other field" } });
    expect((await storedProvider(provider.id))?.oauth2Config?.clientSecretCipher).toBe(
      before?.oauth2Config?.clientSecretCipher,
    );
    // A new secret replaces it.
    await world.alice.api.patch(`/providers/${provider.id}`, {
      provider: { oauth2Config: { clientSecret: "rotated" } },
    });
    const rotated = await storedProvider(provider.id);
    expect(rotated?.oauth2Config?.clientSecretCipher).not.toBe(before?.oauth2Config?.clientSecretCipher);
    expect(rotated?.oauth2Config?.clientID).toBe("client-2");
  });

  it('"oauth2Config": null removes the config', async () => {
    const provider = await createProvider(world.alice.api, { oauth2Config: config });
    const res = await world.alice.api.patch(`/providers/${provider.id}`, { provider: { oauth2Config: null } });
    expectStatus(res, 200);
    expect("oauth2Config" in res.body.provider).toBe(false);
    expect(res.body.provider.version).toBe(2);
    expect("oauth2Config" in (await fetchRecord(world.alice.api, `/providers/${provider.id}`, "provider"))).toBe(false);
    expect((await storedProvider(provider.id))?.oauth2Config).toBeNull();
  });

  it("refuses non-http(s) URLs and unknown fields inside it", async () => {
    const paths = expectInvalid(
      await world.alice.api.post("/providers", {
        provider: providerWrite({
          oauth2Config: { clientID: 5, authURL: "javascript:alert(1)", tokenURL: "/relative", secret: "x" },
        }),
      }),
    );
    expect(paths.sort()).toEqual(
      [
        "provider.oauth2Config.authURL",
        "provider.oauth2Config.clientID",
        "provider.oauth2Config.secret",
        "provider.oauth2Config.tokenURL",
      ].sort(),
    );
  });
});

describe("validation", () => {
  it("name and baseURL are required on create, reported together", async () => {
    expect(expectInvalid(await world.alice.api.post("/providers", { provider: { description: "x" } })).sort()).toEqual([
      "provider.baseURL",
      "provider.name",
    ]);
  });

  it.each([
    ["apiType INVALID", { apiType: "INVALID" }, "provider.apiType"],
    ["apiType unknown", { apiType: "GRAPHQL" }, "provider.apiType"],
    ["apiType as a number", { apiType: 1 }, "provider.apiType"],
    ["visibilityType INVALID", { visibilityType: "INVALID" }, "provider.visibilityType"],
    ["visibilityType lower case", { visibilityType: "public" }, "provider.visibilityType"],
    ["baseURL relative", { baseURL: "/v1" }, "provider.baseURL"],
    ["baseURL ftp", { baseURL: "ftp://files.example.com" }, "provider.baseURL"],
    ["baseURL with credentials", { baseURL: "https://user:pw@api.example.com" }, "provider.baseURL"],
    ["documentURL not a URL", { documentURL: "docs" }, "provider.documentURL"],
    ["iconURL data:", { iconURL: "data:image/png;base64,AAAA" }, "provider.iconURL"],
    ["name empty after trimming", { name: "   " }, "provider.name"],
    ["name over 100", { name: "p".repeat(101) }, "provider.name"],
    ["description over 10,000", { description: "d".repeat(10_001) }, "provider.description"],
    ["unknown field (typo)", { baseUrl: "https://x.example" }, "provider.baseUrl"],
  ])("%s answers 400 at %s", async (_label, fields, path) => {
    const res = await world.alice.api.post("/providers", { provider: providerWrite(fields) });
    expect(expectInvalid(res)).toEqual([path]);
  });

  it("several problems are reported together", async () => {
    const paths = expectInvalid(
      await world.alice.api.post("/providers", {
        provider: { name: "", baseURL: "nope", apiType: "INVALID", visibilityType: "INVALID", extra: true },
      }),
    );
    expect(paths.sort()).toEqual(
      ["provider.apiType", "provider.baseURL", "provider.extra", "provider.name", "provider.visibilityType"].sort(),
    );
  });

  it("PATCH is validated the same way and changes nothing when invalid", async () => {
    const provider = await createProvider(world.alice.api);
    const paths = expectInvalid(
      await world.alice.api.patch(`/providers/${provider.id}`, {
        provider: { name: "fine name", visibilityType: "INVALID", tools: [], iconURL: "x" },
      }),
    );
    expect(paths.sort()).toEqual(["provider.iconURL", "provider.visibilityType"]);
    expect(await fetchRecord(world.alice.api, `/providers/${provider.id}`, "provider")).toEqual(provider);
  });

  it("a provider name is unique per tenant: 409 ALREADY_EXISTS on create and rename; other tenants may use it", async () => {
    const provider = await createProvider(world.alice.api);
    expectProblem(
      await world.alice.api.post("/providers", { provider: providerWrite({ name: provider.name }) }),
      409,
      "ALREADY_EXISTS",
    );
    const other = await createProvider(world.alice.api);
    expectProblem(
      await world.alice.api.patch(`/providers/${other.id}`, { provider: { name: provider.name } }),
      409,
      "ALREADY_EXISTS",
    );
    expect(await fetchRecord(world.alice.api, `/providers/${other.id}`, "provider")).toEqual(other);
    const bob = await world.svc.tenant("bob");
    expectStatus(await bob.api.post("/providers", { provider: providerWrite({ name: provider.name }) }), 201);
  });

  it("unknown ids answer 404, malformed ids 400", async () => {
    expectProblem(await world.alice.api.get(`/providers/${unknownId()}`), 404, "NOT_FOUND");
    expectProblem(
      await world.alice.api.patch(`/providers/${unknownId()}`, { provider: { name: "x" } }),
      404,
      "NOT_FOUND",
    );
    expectProblem(await world.alice.api.delete(`/providers/${unknownId()}`), 404, "NOT_FOUND");
    expect(expectInvalid(await world.alice.api.get("/providers/abc"))).toEqual(["id"]);
    expect(expectInvalid(await world.alice.api.patch("/providers/abc", { provider: { name: "x" } }))).toEqual(["id"]);
    expect(expectInvalid(await world.alice.api.delete("/providers/%20%20%20%20%20%20%20%20%20%20%20"))).toEqual(["id"]);
  });
});
