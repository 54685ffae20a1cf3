import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AUDIENCE,
  type AuthorizationServer,
  startAuthorizationServer,
} from "../../../packages/upstream-oauth/test/support/authorization-server.js";
import { startUpstream, type Upstream } from "../../../packages/upstream-oauth/test/support/upstream.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { plant } from "./support/planted-secrets.js";
import { expectInvalid } from "./support/problems.js";

// docs/api-rules.md §13 through the service: a provider's oauth2Config gets real tokens for its tools over
// /mcp/{id} (client credentials against a real oidc-provider, verified by the upstream), no token ever shows
// in an answer or a log line, and a tool header that sets Authorization on such a provider is refused on write.

let svc: TestService;
let as: AuthorizationServer;
let upstream: Upstream;
let owner: Tenant;

beforeAll(async () => {
  as = await startAuthorizationServer("http://127.0.0.1:1/oauth2/callback");
  upstream = await startUpstream(as.issuer, AUDIENCE, as.publicJwk);
  svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
  owner = await svc.tenant("oauth");
});

afterAll(async () => {
  await svc?.close();
  await upstream?.close();
  await as?.close();
});

const createProvider = async (oauth2Config: Record<string, string> | undefined, name = "Items") => {
  const res = await owner.api.post("/providers", {
    provider: { name, baseURL: upstream.baseURL, ...(oauth2Config ? { oauth2Config } : {}) },
  });
  expect(res.status).toBe(201);
  return res.body.provider as { id: string; version: number };
};

describe("client credentials over /mcp", () => {
  it("a tool of the provider is called with a token from tokenURL; the token never leaves the service", async () => {
    const provider = await createProvider({
      clientID: as.basicClient.id,
      clientSecret: as.basicClient.secret,
      tokenURL: as.tokenURL,
    });
    const tool = await owner.api.post(`/providers/${provider.id}/tools`, {
      tool: { name: "listItems", method: "GET", path: "/items", oauth2Scopes: ["items:read"] },
    });
    expect(tool.status).toBe(201);
    const server = await owner.api.post("/servers", { server: { name: "Items", providers: [{ id: provider.id }] } });
    const token = await owner.api.post(`/servers/${server.body.server.id}/tokens`, { token: { name: "t" } });
    const client = new Client(
      { name: "api-test", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${server.body.server.id}`), {
        requestInit: { headers: { Authorization: `Bearer ${token.body.token.value}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: "listItems", arguments: {} });
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toMatchObject({ ok: true, client: as.basicClient.id, scope: "items:read" });
      // The leak detector watches the upstream token from now on (answers, logs, audit trail).
      for (const seen of upstream.seen) plant(seen, "upstream access token");
      const read = await owner.api.get(`/providers/${provider.id}`);
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(as.basicClient.secret);
    } finally {
      await client.close();
    }
  });
});

describe("resources/read with oauth2Config", () => {
  it("a resource on the provider's base URL is read with a client-credentials token", async () => {
    const provider = await createProvider(
      { clientID: as.basicClient.id, clientSecret: as.basicClient.secret, tokenURL: as.tokenURL },
      "Readable",
    );
    await owner.api.post(`/providers/${provider.id}/tools`, {
      tool: { name: "listItems", method: "GET", path: "/items", oauth2Scopes: ["items:read"] },
    });
    const resource = await owner.api.post(`/providers/${provider.id}/resources`, {
      resource: { name: "items", uri: `${upstream.baseURL}/items`, mimeType: "application/json" },
    });
    expect(resource.status).toBe(201);
    const server = await owner.api.post("/servers", {
      server: { name: "Readable", providers: [{ id: provider.id }], resources: [{ id: resource.body.resource.id }] },
    });
    expect(server.status).toBe(201);
    const token = await owner.api.post(`/servers/${server.body.server.id}/tokens`, { token: { name: "t" } });
    const client = new Client(
      { name: "api-test", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${server.body.server.id}`), {
        requestInit: { headers: { Authorization: `Bearer ${token.body.token.value}` } },
      }),
    );
    try {
      const read = await client.readResource({ uri: `${upstream.baseURL}/items` });
      const text = String((read.contents[0] as { text?: string }).text);
      expect(JSON.parse(text)).toMatchObject({ ok: true, client: as.basicClient.id, scope: "items:read" });
      for (const seen of upstream.seen) plant(seen, "upstream access token");
    } finally {
      await client.close();
    }
  });
});

describe("one source of credentials", () => {
  it("a tool header setting Authorization is refused on a provider with oauth2Config", async () => {
    const provider = await createProvider(
      { clientID: "c", clientSecret: "secret-of-the-client-1", tokenURL: as.tokenURL },
      "P1",
    );
    const created = await owner.api.post(`/providers/${provider.id}/tools`, {
      tool: { name: "t", method: "GET", path: "/x", headers: [{ key: "authorization", value: "Bearer x" }] },
    });
    expect(expectInvalid(created)).toContain("tool.headers");
    expect(created.text).toContain("Authorization");
    const ok = await owner.api.post(`/providers/${provider.id}/tools`, {
      tool: { name: "t", method: "GET", path: "/x", headers: [{ key: "X-Other", value: "y" }] },
    });
    expect(ok.status).toBe(201);
    const patched = await owner.api.patch(`/providers/${provider.id}/tools/${ok.body.tool.id}`, {
      tool: { headers: [{ key: "Authorization", value: "Basic eA==" }] },
    });
    expect(expectInvalid(patched)).toContain("tool.headers");
  });

  it("adding oauth2Config to a provider whose tools set Authorization is refused", async () => {
    const provider = await createProvider(undefined, "P2");
    const tool = await owner.api.post(`/providers/${provider.id}/tools`, {
      tool: { name: "t", method: "GET", path: "/x", headers: [{ key: "Authorization", value: "Bearer static" }] },
    });
    expect(tool.status).toBe(201);
    const patched = await owner.api.patch(`/providers/${provider.id}`, {
      provider: { oauth2Config: { clientID: "c", tokenURL: as.tokenURL } },
    });
    expect(expectInvalid(patched)).toContain("provider.oauth2Config");
    expect(patched.text).toContain("tool 't'");
  });
});
