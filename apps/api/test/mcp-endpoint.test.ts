import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Storage } from "@mcpsm/domain/storage";
import { defaultMcpSettings } from "@mcpsm/mcp-runtime";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Layer, ManagedRuntime } from "effect";
import { importJWK, SignJWT } from "jose";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_ISSUER, devSigningKey, mintDevToken } from "../src/auth/dev-auth.js";
import { localConfig } from "../src/config/local-config.js";
import { type RunningService, startService } from "../src/service.js";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { testStorage } from "./support/test-storage.js";

// The MCP endpoint as mounted by the service: management changes made over HTTP are served at once, and
// server tokens, management tokens and MCP OAuth tokens each work only where they belong.

let service: RunningService;
// The suite's store (support/test-storage.ts decides which), built here like the harness does.
const store = ManagedRuntime.make(testStorage());
let upstream: Loopback;
let dataDir: string;
let adminToken: string;
const logs: Array<Record<string, unknown>> = [];
const seen: Array<{ url: string; headers: Record<string, unknown> }> = [];

const api = async (method: string, path: string, body?: unknown, token = adminToken) => {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) };
};

const connect = async (serverId: string, token: string, era: "2025-11-25" | "2026-07-28") => {
  const client = new Client(
    { name: "api-test", version: "1" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service.url}/mcp/${serverId}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

/** An access token signed by the dev-auth key whose audience is an MCP server's URL (what an AS would mint). */
const mcpAccessToken = async (tenant: string, audience: string) => {
  const { privateJwk } = await devSigningKey(dataDir);
  return new SignJWT({ scope: "mcp" })
    .setProtectedHeader({ alg: "ES256", kid: privateJwk.kid ?? "" })
    .setIssuer(DEV_ISSUER)
    .setAudience(audience)
    .setSubject(tenant)
    .setExpirationTime("5m")
    .sign(await importJWK(privateJwk, "ES256"));
};

let serverId: string;
let providerId: string;
let toolId: string;
let serverToken: string;

beforeAll(async () => {
  upstream = await listenOnLoopback((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ ok: true, url: req.url }));
  });
  dataDir = await mkdtemp(join(tmpdir(), "mcpsm-mcp-test-"));
  const config = localConfig(dataDir, {
    logLevel: "info",
    mcp: defaultMcpSettings({ upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 2000 }),
  });
  const logger = pino({ level: "info" }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  service = await startService(config, { storage: Layer.succeed(Storage, await store.runPromise(Storage)), logger });
  adminToken = await mintDevToken(dataDir, { subject: "acme" });
  const port = upstream.port;
  const provider = await api("POST", "/providers", {
    provider: { name: "Local", baseURL: `http://127.0.0.1:${port}/v1` },
  });
  providerId = provider.body.provider.id;
  const tool = await api("POST", `/providers/${providerId}/tools`, {
    tool: {
      name: "getThing",
      description: "first description",
      method: "GET",
      path: "/things/{id}",
      pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    },
  });
  toolId = tool.body.tool.id;
  const server = await api("POST", "/servers", {
    server: { name: "Things", instructions: "Thing tools", providers: [{ id: providerId }] },
  });
  serverId = server.body.server.id;
  serverToken = (await api("POST", `/servers/${serverId}/tokens`, { token: { name: "agent" } })).body.token.value;
});

afterAll(async () => {
  await service?.close();
  await upstream?.close();
  await store.dispose();
  await rm(dataDir, { recursive: true, force: true });
});

describe("MCP endpoint of the service", () => {
  it.each(["2025-11-25", "2026-07-28"] as const)("serves a composed server to the SDK client (%s)", async (era) => {
    const client = await connect(serverId, serverToken, era);
    expect(client.getServerVersion()).toMatchObject({ name: "Things", title: "Things", version: "1" });
    expect(client.getInstructions()).toBe("Thing tools");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["getThing"]);
    const result = await client.callTool({ name: "getThing", arguments: { pathArgs: { id: "42" } } });
    expect(result.structuredContent).toEqual({ ok: true, url: "/v1/things/42" });
    expect(seen.at(-1)?.headers.authorization).toBeUndefined();
    await client.close();
  });

  it("shows a change made through the management API on the next MCP request", async () => {
    const client = await connect(serverId, serverToken, "2026-07-28");
    expect((await client.listTools()).tools[0]?.description).toBe("first description");
    const patched = await api("PATCH", `/providers/${providerId}/tools/${toolId}`, {
      tool: { description: "second description" },
    });
    expect(patched.status).toBe(200);
    expect((await client.listTools()).tools[0]?.description).toBe("second description");
    await client.close();
  });

  it("switches dynamic tool discovery on and off through the management API (both eras)", async () => {
    const set = (on: boolean) => api("PATCH", `/servers/${serverId}`, { server: { dynamicToolDiscoveryEnabled: on } });
    expect((await set(true)).status).toBe(200);
    try {
      for (const era of ["2025-11-25", "2026-07-28"] as const) {
        const client = await connect(serverId, serverToken, era);
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
          "searchTools",
          "getToolDefinition",
          "useTool",
        ]);
        const found = await client.callTool({ name: "searchTools", arguments: { query: "get a thing" } });
        expect((found.structuredContent as { tools: Array<{ name: string }> }).tools[0]?.name).toBe("getThing");
        const used = await client.callTool({
          name: "useTool",
          arguments: { name: "getThing", arguments: { pathArgs: { id: "7" } } },
        });
        expect(used.structuredContent).toEqual({ ok: true, url: "/v1/things/7" });
        await client.close();
      }
    } finally {
      expect((await set(false)).status).toBe(200);
    }
    const client = await connect(serverId, serverToken, "2026-07-28");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["getThing"]);
    await client.close();
  });

  it("answers 404, not 500, to a server id that is not valid percent-encoding", async () => {
    for (const path of ["/mcp/%E0", "/.well-known/oauth-protected-resource/mcp/%E0"]) {
      const response = await fetch(`${service.url}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status, path).toBe(404);
    }
  });

  it("answers 401 with a resource_metadata challenge and publishes the metadata without any token", async () => {
    const response = await fetch(`${service.url}/mcp/${serverId}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    const metadataUrl = `${service.url}/.well-known/oauth-protected-resource/mcp/${serverId}`;
    expect(response.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    expect(response.headers.get("x-request-id")).toBeTruthy();
    const metadata = await fetch(metadataUrl);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({
      resource: `${service.url}/mcp/${serverId}`,
      bearer_methods_supported: ["header"],
    });
    expect(logs.some((line) => line.path === `/mcp/${serverId}` && line.status === 401)).toBe(true);
  });

  it("keeps each credential to its place: server tokens and MCP-audience tokens are refused by the management API, management tokens by MCP", async () => {
    expect((await api("GET", `/servers/${serverId}`, undefined, serverToken)).status).toBe(401);
    const mcpToken = await mcpAccessToken("acme", `${service.url}/mcp/${serverId}`);
    expect((await api("GET", `/servers/${serverId}`, undefined, mcpToken)).status).toBe(401);
    const client = await connect(serverId, mcpToken, "2026-07-28");
    expect((await client.listTools()).tools).toHaveLength(1);
    await client.close();
    await expect(connect(serverId, adminToken, "2025-11-25")).rejects.toThrow();
    const otherTenant = await mcpAccessToken("mallory", `${service.url}/mcp/${serverId}`);
    await expect(connect(serverId, otherTenant, "2026-07-28")).rejects.toThrow();
  });

  it("answers an OAuth token of another tenant for this server's URL with 404, exactly as for a missing server", async () => {
    const post = async (id: string, token: string) => {
      const response = await fetch(`${service.url}/mcp/${id}`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      return {
        status: response.status,
        challenge: response.headers.get("www-authenticate"),
        body: await response.json(),
      };
    };
    const foreign = await post(serverId, await mcpAccessToken("mallory", `${service.url}/mcp/${serverId}`));
    const missing = await post("AAAAAAAAAAA", await mcpAccessToken("mallory", `${service.url}/mcp/AAAAAAAAAAA`));
    expect(foreign).toEqual({
      status: 404,
      challenge: null,
      body: { jsonrpc: "2.0", error: { code: -32001, message: `MCP server '${serverId}' does not exist` }, id: null },
    });
    expect(missing).toEqual({
      status: 404,
      challenge: null,
      body: { jsonrpc: "2.0", error: { code: -32001, message: "MCP server 'AAAAAAAAAAA' does not exist" }, id: null },
    });
  });
});
