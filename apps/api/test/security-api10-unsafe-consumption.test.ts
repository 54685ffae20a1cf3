import { ALL_SCOPES } from "@mcpsm/domain";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthServer, signingKey, startAuthServer } from "./support/auth-server.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { expectProblem } from "./support/problems.js";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { createProvider, createServer as createMcpServer, createToken, createTool } from "./support/records.js";

// OWASP API10:2023 Unsafe Consumption of APIs: what other systems answer is untrusted input. The service
// consumes three: the authorization server's key set, its introspection endpoint, and the upstream REST APIs
// behind MCP tools. Covered elsewhere: introspection answers that are errors, redirects, HTML, a string
// 'active', an array or over 64 KiB are all 503, never an accepted token (security-api2-authentication.test.ts,
// 6 attacks); upstream 4xx/5xx become tool errors, a silent upstream times out, oversized bodies are
// truncated, redirects are followed within the upstream's origin only, binary and non-object JSON are wrapped
// (packages/mcp-runtime/test/mcp-endpoint.test.ts, 6 attacks). Here: hostile key sets, and hostile upstream
// answers through the whole service.

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("a hostile key set", () => {
  let auth: AuthServer;
  let svc: TestService;
  beforeAll(async () => {
    auth = await startAuthServer();
    auth.keys = [await signingKey("good")];
    svc = await startTestService({
      auth: {
        mode: "jwks",
        jwksUrl: new URL(auth.jwksUrl),
        issuer: auth.issuer,
        audience: "api",
        tenantClaim: "sub",
        jwksCooldownMs: 0,
      },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await auth?.close();
  });
  const claims = { iss: "", aud: "api", sub: "t", scope: ALL_SCOPES.join(" ") };

  it.each([
    ["HTML", { status: 200, body: "<html>keys</html>", type: "text/html" }],
    ["keys that are not an array", { status: 200, body: '{"keys":"all of them"}' }],
    ["an error answer", { status: 500, body: "{}" }],
  ])("answering %s makes the request 503, never accepted", async (_label, answer) => {
    auth.jwksAnswer = answer;
    try {
      const key = await signingKey(`fresh-${Math.random()}`);
      const token = await auth.sign(key, { ...claims, iss: auth.issuer, exp: nowSeconds() + 60 });
      expectProblem(await svc.client(token).get("/servers"), 503, "UNAVAILABLE");
    } finally {
      auth.jwksAnswer = undefined;
    }
  });

  it("a symmetric (oct) key slipped into the set does not make HS256 tokens acceptable", async () => {
    const secret = "shared-secret-from-a-compromised-key-set";
    auth.jwksAnswer = {
      status: 200,
      body: JSON.stringify({
        keys: [
          { kty: "oct", kid: "hmac", k: Buffer.from(secret).toString("base64url"), alg: "HS256" },
          ...auth.keys.map((k) => k.publicJwk),
        ],
      }),
    };
    try {
      const token = await new SignJWT({ ...claims, iss: auth.issuer, exp: nowSeconds() + 60 })
        .setProtectedHeader({ alg: "HS256", kid: "hmac" })
        .sign(new TextEncoder().encode(secret));
      expectProblem(await svc.client(token).get("/servers"), 401, "UNAUTHENTICATED");
      const none = `${Buffer.from('{"alg":"none","kid":"hmac"}').toString("base64url")}.${Buffer.from(
        JSON.stringify({ ...claims, iss: auth.issuer, exp: nowSeconds() + 60 }),
      ).toString("base64url")}.`;
      expectProblem(await svc.client(none).get("/servers"), 401, "UNAUTHENTICATED");
    } finally {
      auth.jwksAnswer = undefined;
    }
  });
});

describe("hostile upstream answers, through the whole service", () => {
  let upstream: Loopback | undefined;
  let svc: TestService;
  let alice: Tenant;
  let client: Client;
  let mcpUrl: string;
  let mcpToken: string;

  beforeAll(async () => {
    upstream = await listenOnLoopback((req, res) => {
      const path = req.url ?? "/";
      if (path.startsWith("/huge")) {
        res.writeHead(200, { "content-type": "text/plain" });
        const chunk = "x".repeat(64 * 1024);
        for (let i = 0; i < 80; i++) res.write(chunk); // 5 MiB
        return res.end();
      }
      if (path.startsWith("/headers")) {
        res.writeHead(200, {
          "content-type": "application/json",
          "set-cookie": "session=stolen; Path=/",
          "access-control-allow-origin": "*",
          "www-authenticate": 'Basic realm="upstream"',
          location: "https://evil.example/",
        });
        return res.end('{"ok":true}');
      }
      if (path.startsWith("/lie")) {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end('{"unterminated": <script>alert(1)</script>');
      }
      if (path.startsWith("/redirect")) {
        res.writeHead(302, { location: `http://127.0.0.2:${upstream?.port}/headers` });
        return res.end();
      }
      res.writeHead(404);
      res.end();
    });
    svc = await startTestService({
      mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamMaxResponseBytes: 64 * 1024 },
    });
    alice = await svc.tenant("upstream");
    const provider = await createProvider(alice.api, {
      baseURL: upstream.url,
    });
    for (const [name, path] of [
      ["huge", "/huge"],
      ["headers", "/headers"],
      ["lie", "/lie"],
      ["redirect", "/redirect"],
    ])
      await createTool(alice.api, provider.id, { name, path });
    const server = await createMcpServer(alice.api, { providers: [{ id: provider.id }] });
    const token = await createToken(alice.api, server.id);
    mcpUrl = `${svc.url}/mcp/${server.id}`;
    mcpToken = token.value;
    client = new Client({ name: "api10", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${server.id}`), {
        requestInit: { headers: { Authorization: `Bearer ${token.value}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await svc?.close();
    await upstream?.close();
  });

  const text = (result: Awaited<ReturnType<Client["callTool"]>>) => JSON.stringify(result.content);

  it("a 5 MiB answer is cut to the configured 64 KiB and says so", async () => {
    const result = await client.callTool({ name: "huge" });
    expect(text(result).length).toBeLessThan(80 * 1024);
    expect(text(result)).toMatch(/truncat/i);
  });

  it("an upstream's cookies, CORS grants, challenges and redirects never reach the MCP client's HTTP answer", async () => {
    const result = await client.callTool({ name: "headers" });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain("ok");
    // The same call as raw HTTP, to see the headers of the MCP answer itself.
    const response = await fetch(mcpUrl, {
      method: "POST",
      headers: {
        authorization: `Bearer ${mcpToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "headers", arguments: {} } }),
    });
    const body = await response.text();
    expect(response.status, body).toBe(200);
    for (const header of ["set-cookie", "access-control-allow-origin", "www-authenticate", "location"])
      expect(response.headers.get(header), header).toBeNull();
  });

  it("JSON that is not JSON is passed on as text, not parsed, and nothing fails", async () => {
    const result = await client.callTool({ name: "lie" });
    expect(text(result)).toContain("unterminated");
  });

  it("a redirect to another origin is not followed", async () => {
    const result = await client.callTool({ name: "redirect" });
    expect(text(result)).not.toContain('\\"ok\\":true');
  });
});
