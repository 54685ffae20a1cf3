import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUpstreamOAuth } from "../src/index.js";
import { AUDIENCE, type AuthorizationServer, startAuthorizationServer } from "./support/authorization-server.js";
import {
  actorOf,
  connect,
  ERAS,
  makeServices,
  manage,
  type RunningMcp,
  type Services,
  startMcp,
  textOf,
} from "./support/harness.js";
import { startUpstream, type Upstream } from "./support/upstream.js";

// Client credentials end to end: an SDK client calls /mcp/{id}; the runtime gets a token from a real
// authorization server (oidc-provider) through @mcpsm/upstream-oauth and sends it to an upstream that
// verifies it (docs/api-rules.md §13).

let as: AuthorizationServer;
let upstream: Upstream;
let services: Services;
let mcp: RunningMcp;
let clock = Date.now();
const oauth = createUpstreamOAuth({ now: () => clock });
const ids = { server: "", token: "" };
const clientCount = () => as.tokenRequests.get("client_credentials") ?? 0;

beforeAll(async () => {
  as = await startAuthorizationServer("http://127.0.0.1:1/oauth2/callback");
  upstream = await startUpstream(as.issuer, AUDIENCE, as.publicJwk);
  services = makeServices();
  const m = manage(services, actorOf("acme"));
  const provider = await m.provider({
    name: "Items",
    baseURL: upstream.baseURL,
    oauth2Config: { clientID: as.basicClient.id, clientSecret: as.basicClient.secret, tokenURL: as.tokenURL },
  });
  const postProvider = await m.provider({
    name: "ItemsPost",
    baseURL: upstream.baseURL,
    oauth2Config: { clientID: as.postClient.id, clientSecret: as.postClient.secret, tokenURL: as.tokenURL },
  });
  const wrongSecret = await m.provider({
    name: "WrongSecret",
    baseURL: upstream.baseURL,
    oauth2Config: { clientID: as.basicClient.id, clientSecret: "not-the-secret", tokenURL: as.tokenURL },
  });
  await m.tool(provider.id, { name: "listItems", method: "GET", path: "/items", oauth2Scopes: ["items:read"] });
  await m.tool(provider.id, { name: "addItem", method: "POST", path: "/items", oauth2Scopes: ["items:write"] });
  await m.tool(provider.id, { name: "admin", method: "GET", path: "/admin", oauth2Scopes: ["items:read"] });
  await m.tool(postProvider.id, { name: "listViaPost", method: "GET", path: "/items", oauth2Scopes: ["items:read"] });
  await m.tool(wrongSecret.id, { name: "listWrong", method: "GET", path: "/items", oauth2Scopes: ["items:read"] });
  const server = await m.server({
    name: "S",
    providers: [{ id: provider.id }, { id: postProvider.id }, { id: wrongSecret.id }],
  });
  ids.server = server.id;
  ids.token = (await m.token(server.id)).value;
  mcp = await startMcp(services, { upstreamAuthorization: oauth });
});

afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
  await as?.close();
  await services?.dispose();
});

describe.each(ERAS)("client credentials (%s)", (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(mcp.url, ids.server, era, ids.token);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("calls the upstream with a token the authorization server issued for the tool's scopes", async () => {
    const result = await client.callTool({ name: "listItems", arguments: {} });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ ok: true, client: as.basicClient.id, scope: "items:read" });
  });

  it("reuses the cached token: no new token request while it is fresh", async () => {
    await client.callTool({ name: "listItems", arguments: {} });
    const before = clientCount();
    for (let i = 0; i < 3; i++) await client.callTool({ name: "listItems", arguments: {} });
    expect(clientCount()).toBe(before);
  });

  it("keeps one token per scope set", async () => {
    const result = await client.callTool({ name: "addItem", arguments: {} });
    expect(result.structuredContent).toMatchObject({ ok: true, scope: "items:write" });
  });

  it("a scope the token lacks reaches the upstream's 403 as a tool error", async () => {
    const result = await client.callTool({ name: "admin", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("HTTP 403");
  });

  it("falls back to client_secret_post when the server refuses basic", async () => {
    const result = await client.callTool({ name: "listViaPost", arguments: {} });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ client: as.postClient.id });
  });

  it("a refused client secret is a tool error naming the provider, never the secret", async () => {
    const result = await client.callTool({ name: "listWrong", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("provider 'WrongSecret'");
    expect(textOf(result)).toContain("invalid_client");
    expect(textOf(result)).not.toContain("not-the-secret");
  });
});

describe("token lifetime", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(mcp.url, ids.server, "2026-07-28", ids.token);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("fetches a new token once the cached one is about to expire", async () => {
    await client.callTool({ name: "listItems", arguments: {} });
    const before = clientCount();
    clock += 3600 * 1000 - 30_000; // inside the refresh margin of a one-hour token
    const result = await client.callTool({ name: "listItems", arguments: {} });
    expect(result.isError ?? false).toBe(false);
    expect(clientCount()).toBe(before + 1);
  });

  it("after an upstream 401 fetches a new token once and retries the call", async () => {
    await client.callTool({ name: "listItems", arguments: {} });
    const stale = upstream.seen.at(-1) as string;
    upstream.rejected.add(stale);
    const before = clientCount();
    const result = await client.callTool({ name: "listItems", arguments: {} });
    expect(result.isError ?? false).toBe(false);
    expect(clientCount()).toBe(before + 1);
    expect(upstream.seen.at(-1)).not.toBe(stale);
  });

  it("a second 401 is the upstream's answer (no loop)", async () => {
    await client.callTool({ name: "listItems", arguments: {} });
    const seenBefore = upstream.seen.length;
    upstream.refuseAll = true;
    try {
      const result = await client.callTool({ name: "listItems", arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("HTTP 401");
      expect(upstream.seen.length - seenBefore).toBe(2);
    } finally {
      upstream.refuseAll = false;
    }
  });

  it("many concurrent calls share one token request", async () => {
    clock += 7200 * 1000;
    const before = clientCount();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => client.callTool({ name: "listItems", arguments: {} })),
    );
    expect(results.every((r) => r.isError !== true)).toBe(true);
    expect(clientCount()).toBe(before + 1);
  });
});

describe("faults of the authorization server", () => {
  let bad: Server;
  let badUrl = "";
  let mode: "html" | "error" | "no-expiry" | "slow" = "html";
  let faultServices: Services;
  let faultMcp: RunningMcp;
  let client: Client;
  const faultIds = { server: "", token: "" };

  beforeAll(async () => {
    bad = createServer((req, res) => {
      req.resume();
      if (mode === "slow") return; // never answers
      if (mode === "html") {
        res.writeHead(200, { "Content-Type": "text/html" });
        res.end("<html><body>Sign in</body></html>");
      } else if (mode === "error") {
        res.writeHead(400, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: "invalid_scope", error_description: "no such scope" }));
      } else {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ access_token: "abc", token_type: "Bearer" }));
      }
    });
    await new Promise<void>((resolve) => bad.listen(0, "127.0.0.1", resolve));
    badUrl = `http://127.0.0.1:${(bad.address() as AddressInfo).port}/token`;
    faultServices = makeServices();
    const m = manage(faultServices, actorOf("acme"));
    const down = await m.provider({
      name: "Down",
      baseURL: upstream.baseURL,
      oauth2Config: { clientID: "c", clientSecret: "down-secret-value", tokenURL: "http://127.0.0.1:1/token" },
    });
    const faulty = await m.provider({
      name: "Faulty",
      baseURL: upstream.baseURL,
      oauth2Config: { clientID: "c", clientSecret: "faulty-secret-value", tokenURL: badUrl },
    });
    await m.tool(down.id, { name: "viaDown", method: "GET", path: "/items" });
    await m.tool(faulty.id, { name: "viaFaulty", method: "GET", path: "/items" });
    const server = await m.server({ name: "F", providers: [{ id: down.id }, { id: faulty.id }] });
    faultIds.server = server.id;
    faultIds.token = (await m.token(server.id)).value;
    faultMcp = await startMcp(faultServices, { upstreamAuthorization: createUpstreamOAuth() });
    client = await connect(faultMcp.url, faultIds.server, "2026-07-28", faultIds.token);
  });
  afterAll(async () => {
    await client?.close();
    await faultMcp?.close();
    bad?.closeAllConnections();
    await new Promise<void>((resolve) => (bad ? bad.close(() => resolve()) : resolve()));
    await faultServices?.dispose();
  });

  const expectFault = async (tool: string, provider: string, secret: string, reason: RegExp) => {
    const result = await client.callTool({ name: tool, arguments: {} });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain(`provider '${provider}'`);
    expect(text).toMatch(reason);
    expect(text).not.toContain(secret);
  };

  it("an authorization server that is down", () =>
    expectFault("viaDown", "Down", "down-secret-value", /could not reach/));

  it("an answer in HTML", async () => {
    mode = "html";
    await expectFault("viaFaulty", "Faulty", "faulty-secret-value", /not a usable token response|not JSON/);
  });

  it("an OAuth error answer", async () => {
    mode = "error";
    await expectFault("viaFaulty", "Faulty", "faulty-secret-value", /invalid_scope/);
  });

  it("a token without expires_in", async () => {
    mode = "no-expiry";
    await expectFault("viaFaulty", "Faulty", "faulty-secret-value", /expires_in/);
  });

  it("an authorization server that does not answer in time", async () => {
    mode = "slow";
    await expectFault("viaFaulty", "Faulty", "faulty-secret-value", /did not answer within/);
    // The harness's upstream timeout is 5 s, vitest's default test timeout too: give the wait its own room.
  }, 30_000);
});

describe("network policy", () => {
  it("a token URL on a refused address is a tool error; nothing is sent there", async () => {
    const strictServices = makeServices();
    const m = manage(strictServices, actorOf("acme"));
    const provider = await m.provider({
      name: "Internal",
      baseURL: "https://api.example.com/",
      oauth2Config: { clientID: "c", clientSecret: "internal-secret", tokenURL: as.tokenURL },
    });
    await m.tool(provider.id, { name: "t", method: "GET", path: "/x" });
    const server = await m.server({ name: "P", providers: [{ id: provider.id }] });
    const token = (await m.token(server.id)).value;
    const { createMcpRuntime, defaultMcpSettings } = await import("@mcpsm/mcp-runtime");
    const { createServer: http } = await import("node:http");
    let runtime: ReturnType<typeof createMcpRuntime> | undefined;
    const listener = http((req, res) => void runtime?.handleNode(req, res));
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    runtime = createMcpRuntime({
      runner: strictServices,
      settings: defaultMcpSettings({}),
      listenUrl: url,
      upstreamAuthorization: createUpstreamOAuth(),
    });
    const before = clientCount();
    const client = await connect(url, server.id, "2026-07-28", token);
    try {
      const result = await client.callTool({ name: "t", arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("provider 'Internal'");
      expect(textOf(result)).toContain("network policy");
      expect(clientCount()).toBe(before);
    } finally {
      await client.close();
      listener.closeAllConnections();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      await runtime.close();
      await strictServices.dispose();
    }
  });
});
