import { connect as tcpConnect } from "node:net";
import { lookup as systemLookup } from "node:dns";
import { Unauthenticated } from "@mcpsm/domain/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, SECRET_VALUE, textOf } from "./support/fixture.js";
import { actorOf, connect, makeServices, manage, type RunningMcp, type Services, startMcp } from "./support/harness.js";
import { postJson } from "./support/raw-exchange.js";
import { startUpstream, type Upstream } from "./support/upstream.js";

// Who may call, what crosses to the upstream, the network policy, DNS-rebinding protection and freshness.

let services: Services;
let upstream: Upstream;
let mcp: RunningMcp;
let fixture: Awaited<ReturnType<typeof buildFixture>>;

const ISSUER = "https://issuer.example";

beforeAll(async () => {
  services = makeServices();
  upstream = await startUpstream();
  mcp = await startMcp(
    services,
    { upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 2000 },
    {
      defaultAuthorizationServers: [ISSUER],
      // A stand-in for the JWT verifier of apps/api: `good-<tenant>` is valid for every server URL (and, as
      // there, a token naming no tenant is not).
      oauth: {
        verify: async (token, resource) =>
          token.startsWith("good-") && token.length > 5 && resource.startsWith("http://127.0.0.1:")
            ? { tenant: token.slice(5), scopes: ["mcp"], expiresAt: Math.floor(Date.now() / 1000) + 60 }
            : new Unauthenticated({ detail: "the access token is invalid" }),
      },
    },
  );
  fixture = await buildFixture(services, upstream);
});

afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
  await services?.dispose();
});

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("authentication", () => {
  it("answers 401 with the protected resource metadata URL when no or a bad token is given", async () => {
    const serverId = fixture.server.id;
    const metadata = `${mcp.url}/.well-known/oauth-protected-resource/mcp/${serverId}`;
    const none = await postJson(`${mcp.url}/mcp/${serverId}`, {}, INITIALIZE);
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toBe(`Bearer resource_metadata="${metadata}"`);
    for (const token of ["mcps_notAToken", fixture.proxyToken.value, "good-", "garbage"]) {
      const bad = await postJson(`${mcp.url}/mcp/${serverId}`, { Authorization: `Bearer ${token}` }, INITIALIZE);
      expect(bad.status, token).toBe(401);
      expect(bad.headers["www-authenticate"]).toMatch(
        new RegExp(`^Bearer resource_metadata="${metadata}", error="invalid_token"`),
      );
    }
    const ok = await postJson(
      `${mcp.url}/mcp/${serverId}`,
      { Authorization: `Bearer ${fixture.token.value}` },
      INITIALIZE,
    );
    expect(ok.status).toBe(200);
  });

  it("publishes RFC 9728 protected resource metadata for each server", async () => {
    const id = fixture.server.id;
    const response = await fetch(`${mcp.url}/.well-known/oauth-protected-resource/mcp/${id}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      resource: `${mcp.url}/mcp/${id}`,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ["header"],
    });
  });

  it("accepts OAuth access tokens for the server's URL from the owning tenant only", async () => {
    const client = await connect(mcp.url, fixture.server.id, "2026-07-28", "good-acme");
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    // Another tenant's server answers exactly as a missing one: 404, the same body shape, no challenge.
    const other = await postJson(
      `${mcp.url}/mcp/${fixture.server.id}`,
      { Authorization: "Bearer good-mallory" },
      INITIALIZE,
    );
    const missing = await postJson(`${mcp.url}/mcp/AAAAAAAAAAA`, { Authorization: "Bearer good-mallory" }, INITIALIZE);
    expect(other.status).toBe(404);
    expect(other.headers["www-authenticate"]).toBeUndefined();
    expect(JSON.parse(other.body)).toEqual({
      jsonrpc: "2.0",
      error: { code: -32001, message: `MCP server '${fixture.server.id}' does not exist` },
      id: null,
    });
    expect(JSON.parse(missing.body).error.code).toBe(-32001);
    expect(missing.status).toBe(404);
  });

  it("refuses a token revoked while a client is using it, on its very next request", async () => {
    const token = await fixture.m.token(fixture.server.id, { name: "short-lived" });
    const client = await connect(mcp.url, fixture.server.id, "2025-11-25", token.value);
    expect((await client.callTool({ name: "getItem", arguments: { pathArgs: { itemId: "1" } } })).isError).toBeFalsy();
    await fixture.m.revoke(fixture.server.id, token.id);
    await expect(client.callTool({ name: "getItem", arguments: { pathArgs: { itemId: "1" } } })).rejects.toThrow();
    await client.close().catch(() => {});
  });

  it("answers 404 for a server that does not exist (to a valid OAuth caller)", async () => {
    const missing = await postJson(`${mcp.url}/mcp/AAAAAAAAAAA`, { Authorization: "Bearer good-acme" }, INITIALIZE);
    expect(missing.status).toBe(404);
  });
});

describe("DNS-rebinding protection", () => {
  it("refuses a Host or Origin outside the allow-list before anything else", async () => {
    const url = `${mcp.url}/mcp/${fixture.server.id}`;
    const auth = { Authorization: `Bearer ${fixture.token.value}` };
    expect((await postJson(url, { ...auth, Host: "evil.example" }, INITIALIZE)).status).toBe(403);
    // Issue 10: an empty Host header passed the check (sent byte by byte: Node's client fills an empty one in).
    const target = new URL(url);
    const body = JSON.stringify(INITIALIZE);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = tcpConnect(Number(target.port), target.hostname, () =>
        socket.end(
          [
            `POST ${target.pathname} HTTP/1.1`,
            "Host: ",
            `Authorization: ${auth.Authorization}`,
            "Content-Type: application/json",
            "Accept: application/json, text/event-stream",
            `Content-Length: ${Buffer.byteLength(body)}`,
            "Connection: close",
            "",
            body,
          ].join("\r\n"),
        ),
      );
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (text += chunk));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 403 Forbidden");
    expect(answer).toContain("Host");
    expect((await postJson(url, { ...auth, Origin: "http://evil.example" }, INITIALIZE)).status).toBe(403);
    expect((await postJson(url, { ...auth, Origin: "null" }, INITIALIZE)).status).toBe(403);
    expect(
      (
        await postJson(
          url,
          { ...auth, Host: `localhost:${new URL(mcp.url).port}`, Origin: "http://localhost:6274" },
          INITIALIZE,
        )
      ).status,
    ).toBe(200);
  });
});

describe("request header forwarding", () => {
  const headers = { "X-Trace-Id": "trace-123", Cookie: "session=abc", "X-Api-Key": "client-supplied" };

  it("forwards the client's headers, minus credentials and MCP's own, when the server enables it", async () => {
    const client = await connect(mcp.url, fixture.proxyServer.id, "2026-07-28", fixture.proxyToken.value, headers);
    await client.callTool({ name: "getItem", arguments: { pathArgs: { itemId: "1" } } });
    const seen = upstream.last().headers;
    expect(seen["x-trace-id"]).toBe("trace-123");
    expect(seen["x-api-key"]).toBe(`Bearer ${SECRET_VALUE}`); // the tool's own header wins
    expect(seen.cookie).toBeUndefined();
    expect(seen.authorization).toBeUndefined();
    expect(Object.keys(seen).filter((k) => k.startsWith("mcp-"))).toEqual([]);
    expect(seen.host).toBe(`localhost:${upstream.port}`);
    await client.close();
  });

  it("forwards nothing when the server does not enable it", async () => {
    const client = await connect(mcp.url, fixture.server.id, "2025-11-25", fixture.token.value, headers);
    await client.callTool({ name: "getItem", arguments: { pathArgs: { itemId: "1" } } });
    const seen = upstream.last().headers;
    expect(seen["x-trace-id"]).toBeUndefined();
    expect(seen.cookie).toBeUndefined();
    expect(JSON.stringify(upstream.last().rawHeaders)).not.toContain(fixture.token.value);
    await client.close();
  });
});

describe("freshness", () => {
  it("serves management changes on the next request, and recompiles only when something changed", async () => {
    const f = await buildFixture(services, upstream, "fresh");
    const client = await connect(mcp.url, f.server.id, "2026-07-28", f.token.value);
    await client.listTools();
    const compiles = mcp.runtime.cache.compiles;
    await client.listTools();
    await client.listPrompts();
    expect(mcp.runtime.cache.compiles).toBe(compiles);

    await f.m.updateTool(f.provider.id, f.tools.getItem.id, { description: "Reads one item, fresh" });
    expect((await client.listTools()).tools.find((t) => t.name === "getItem")?.description).toBe(
      "Reads one item, fresh",
    );

    await f.m.setVariable(f.secret.id, "rotated");
    await client.callTool({ name: "getItem", arguments: { pathArgs: { itemId: "1" } } });
    expect(upstream.last().headers["x-api-key"]).toBe("Bearer rotated");

    const added = await f.m.tool(f.provider.id, { name: "addedLater", method: "GET", path: "/echo/later" });
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("addedLater");
    await f.m.addTool(f.server.id, f.provider.id, added.id);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("addedLater");

    await f.m.updateServer(f.server.id, { name: "Renamed" });
    const fresh = await connect(mcp.url, f.server.id, "2025-11-25", f.token.value);
    expect(fresh.getServerVersion()?.name).toBe("Renamed");
    await fresh.close();
    await client.close();
  });
});

describe("network policy", () => {
  let strict: RunningMcp;
  let serverId: string;
  let token: string;
  const names = ["viaLocalhost", "viaLoopbackIp", "viaIpv6", "viaMapped", "viaMetadata", "viaIntranet", "viaResolver"];

  beforeAll(async () => {
    // No network is allowed beyond public unicast; `*.test` names resolve through an injected resolver.
    const fakeDns: Record<string, string> = {
      "metadata.test": "169.254.169.254",
      "intranet.test": "10.1.2.3",
      "rebind.test": "127.0.0.1",
    };
    const resolve = ((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
      const address = fakeDns[hostname];
      if (address === undefined) return systemLookup(hostname, options as never, callback as never);
      return callback(null, [{ address, family: 4 }]);
    }) as typeof systemLookup;
    strict = await startMcp(services, { upstreamAllowedNetworks: [], upstreamTimeoutMs: 2000 }, { resolve });
    const m = manage(services, actorOf("ssrf"));
    const bases = [
      `http://localhost:${upstream.port}`,
      `http://127.0.0.1:${upstream.port}`,
      `http://[::1]:${upstream.port}`,
      `http://[::ffff:127.0.0.1]:${upstream.port}`,
      "http://metadata.test/latest",
      "http://intranet.test",
      `http://rebind.test:${upstream.port}`,
    ];
    const providers = [];
    for (const [i, baseURL] of bases.entries()) {
      const provider = await m.provider({ name: `p${i}`, baseURL });
      await m.tool(provider.id, { name: names[i], method: "GET", path: "/echo/ssrf" });
      providers.push({ id: provider.id });
    }
    const resource = await m.resource(providers[0]?.id ?? "", {
      name: "r",
      uri: `http://localhost:${upstream.port}/api/text`,
    });
    const server = await m.server({ name: "ssrf", providers, resources: [{ id: resource.id }] });
    serverId = server.id;
    token = (await m.token(server.id)).value;
  });

  afterAll(async () => {
    await strict?.close();
  });

  it("refuses loopback, private, link-local and mapped addresses, also behind host names, before connecting", async () => {
    const before = upstream.seen.length;
    const client = await connect(strict.url, serverId, "2026-07-28", token);
    for (const name of names) {
      const result = await client.callTool({ name });
      expect(result.isError, name).toBe(true);
      expect(textOf(result), name).toMatch(/not allow/);
    }
    expect(textOf(await client.callTool({ name: "viaLocalhost" }))).toMatch(/localhost resolves to .* \(loopback\)/);
    expect(textOf(await client.callTool({ name: "viaMetadata" }))).toContain("169.254.169.254 (linkLocal)");
    expect(textOf(await client.callTool({ name: "viaIntranet" }))).toContain("10.1.2.3 (private)");
    await expect(client.readResource({ uri: `http://localhost:${upstream.port}/api/text` })).rejects.toThrow(
      /not allow/,
    );
    expect(upstream.seen.length).toBe(before);
    await client.close();
  });
});
