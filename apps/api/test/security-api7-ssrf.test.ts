import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { serviceForFile } from "./support/file-service.js";
import { expectInvalid, expectStatus } from "./support/problems.js";
import {
  createProvider,
  createServer as createMcpServer,
  createToken,
  createTool,
  providerWrite,
} from "./support/records.js";

// OWASP API7:2023 Server Side Request Forgery. The service fetches what providers name: each tool's upstream
// (baseURL), resources (uri), and OAuth endpoints (authURL, tokenURL) it may call later. Writes accept only
// absolute http(s) URLs without credentials; at call time the MCP runtime refuses loopback, private,
// link-local, unique-local, CGNAT, unspecified, multicast and IPv4-mapped addresses (also behind host names
// that resolve there) unless UPSTREAM_ALLOWED_NETWORKS allows them. Covered in packages/mcp-runtime: 15
// address classes (rules.test.ts), 7 call-time bypasses through names and mapped addresses and a resource read
// (mcp-access.test.ts), redirects only within the upstream's origin (mcp-endpoint.test.ts).

const BAD_URLS = [
  "file:///etc/passwd",
  "gopher://127.0.0.1:6379/_INFO",
  "dict://127.0.0.1:11211/stats",
  "ftp://files.example.com/x",
  "ldap://ldap.example.com/",
  "javascript:alert(1)",
  "data:text/plain,hello",
  "jar:https://example.com/x.jar!/",
  "//evil.example/no-scheme",
  "/relative/path",
  "https://user:pass@api.example.com/",
  "https://token@api.example.com/",
  "http://:secret@api.example.com/",
  "https://",
  `https://${"a".repeat(2100)}.example.com/`,
];

// The default network policy: nothing beyond public unicast addresses.
const world = serviceForFile({ alice: "ssrf" });
let upstream: Loopback;
let hits = 0;

beforeAll(async () => {
  upstream = await listenOnLoopback((_req, res) => {
    hits++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"reached":true}');
  });
});
afterAll(() => upstream?.close());

describe("URLs in writes: absolute http(s) only, no credentials", () => {
  const fields: ReadonlyArray<readonly [string, (url: string) => Record<string, unknown>, string]> = [
    ["provider.baseURL", (url) => ({ provider: providerWrite({ baseURL: url }) }), "/providers"],
    ["provider.documentURL", (url) => ({ provider: providerWrite({ documentURL: url }) }), "/providers"],
    ["provider.iconURL", (url) => ({ provider: providerWrite({ iconURL: url }) }), "/providers"],
    [
      "provider.oauth2Config.authURL",
      (url) => ({ provider: providerWrite({ oauth2Config: { clientID: "c", authURL: url, tokenURL: "" } }) }),
      "/providers",
    ],
    [
      "provider.oauth2Config.tokenURL",
      (url) => ({ provider: providerWrite({ oauth2Config: { clientID: "c", authURL: "", tokenURL: url } }) }),
      "/providers",
    ],
  ];

  it(`${fields.length + 1} fields × ${BAD_URLS.length} URLs are refused with 400 naming the field`, async () => {
    const provider = await createProvider(world.alice.api);
    for (const url of BAD_URLS) {
      for (const [field, body, path] of fields)
        expect(expectInvalid(await world.alice.api.post(path, body(url))), `${field} ${url}`).toContain(field);
      const resource = await world.alice.api.post(`/providers/${provider.id}/resources`, {
        resource: { name: "r", uri: url },
      });
      expect(expectInvalid(resource), url).toContain("resource.uri");
    }
    expect(
      (await world.alice.api.get(`/providers?nameContains=${encodeURIComponent("Provider")}`)).body.matchCount,
    ).toBe(1);
  });

  it("a PATCH is held to the same rule", async () => {
    const provider = await createProvider(world.alice.api);
    for (const url of BAD_URLS.slice(0, 6))
      expect(
        expectInvalid(await world.alice.api.patch(`/providers/${provider.id}`, { provider: { baseURL: url } })),
      ).toContain("provider.baseURL");
    expectStatus(await world.alice.api.get(`/providers/${provider.id}`), 200);
  });
});

describe("at call time, internal addresses are refused before connecting (default policy)", () => {
  it("loopback in every spelling the URL parser accepts, the metadata address and the unspecified address", async () => {
    const port = upstream.port;
    const bases = [
      `http://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      `http://2130706433:${port}`, // decimal
      `http://0x7f.0.0.1:${port}`, // hex
      `http://0177.0.0.1:${port}`, // octal
      `http://127.1:${port}`, // short form
      `http://[::1]:${port}`,
      `http://[::ffff:7f00:1]:${port}`, // IPv4-mapped, hex
      `http://0.0.0.0:${port}`,
      "http://169.254.169.254/latest/meta-data",
    ];
    const providers: Array<{ id: string }> = [];
    const names: Array<string> = [];
    for (const [i, baseURL] of bases.entries()) {
      const provider = await createProvider(world.alice.api, { baseURL });
      const tool = await createTool(world.alice.api, provider.id, { name: `reach${i}`, path: "/anything" });
      providers.push({ id: provider.id });
      names.push(tool.name);
    }
    const server = await createMcpServer(world.alice.api, { providers });
    const token = await createToken(world.alice.api, server.id);
    const client = new Client({ name: "ssrf-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${world.svc.url}/mcp/${server.id}`), {
        requestInit: { headers: { Authorization: `Bearer ${token.value}` } },
      }),
    );
    try {
      for (const name of names) {
        const result = await client.callTool({ name });
        expect(result.isError, name).toBe(true);
        expect(JSON.stringify(result.content), name).toMatch(/not allow/);
      }
    } finally {
      await client.close();
    }
    expect(hits).toBe(0);
  });
});
