import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client as McpClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, startTestService, type Tenant, type TestService } from "./support/harness.js";
import { plantedCount } from "./support/planted-secrets.js";
import { expectCreated, expectInvalid, expectProblem, expectStatus, ID } from "./support/problems.js";
import {
  createPrompt,
  createProvider,
  createResource,
  createServer as createServerRecord,
  createToken,
  createTool,
  createVariable,
  uniq,
} from "./support/records.js";

// docs/api-rules.md §16: a server exported by one tenant and imported by another serves the same MCP tools and
// sends the same upstream requests; the export holds no secret; an import is one transaction (a refusal or a
// dry run stores nothing); the document is validated with every problem located.

// biome-ignore lint/suspicious/noExplicitAny: documents and answers are plain JSON
type Json = any;

interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly apiKey: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

let svc: TestService;
let upstream: Server;
let upstreamBase: string;
const recorded: Array<Recorded> = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      recorded.push({
        method: req.method ?? "",
        url: req.url ?? "",
        apiKey: req.headers["x-api-key"] as string | undefined,
        contentType: req.headers["content-type"],
        body: Buffer.concat(chunks).toString("utf8"),
      });
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ ok: true, method: req.method, url: req.url }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  // `localhost` (not 127.0.0.1) so the provider's secretPrefix, LOCALHOST, can name a variable.
  upstreamBase = `http://localhost:${(upstream.address() as AddressInfo).port}/v1`;
  svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8", "::1/128"] } });
});

afterAll(async () => {
  await svc?.close();
  upstream?.closeAllConnections();
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
});

/** Every key of a JSON value, at any depth, but inside a tool's JSON Schemas (whose properties are the tool's). */
const keysOf = (node: unknown): Array<string> => {
  if (Array.isArray(node)) return node.flatMap(keysOf);
  if (typeof node === "object" && node !== null)
    return Object.entries(node).flatMap(([key, value]) => [key, ...(key.endsWith("JSONSchema") ? [] : keysOf(value))]);
  return [];
};

/** What a tenant holds: its servers and providers as listed, and how many audit events it has. */
const holdings = async (api: Client) => {
  const servers = await api.get("/servers");
  const providers = await api.get("/providers?limit=1000");
  const audit = await api.get("/audit-events?limit=1");
  expectStatus(servers, 200);
  expectStatus(providers, 200);
  return {
    servers: servers.body.servers,
    providers: providers.body.providers.map((p: Json) => ({ ...p, tools: p.tools })),
    auditEvents: audit.body.matchCount,
  };
};

const mcp = async (serverId: string, token: string) => {
  const client = new McpClient({ name: "export-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${serverId}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

/** A server of `owner` over the local upstream: two providers, chosen tools, a prompt, a resource, a SECRET. */
const buildSource = async (owner: Tenant, secret: string) => {
  const local = await createProvider(owner.api, {
    name: `Local ${uniq()}`,
    baseURL: upstreamBase,
    description: "the recording upstream",
  });
  expect(local.secretPrefix).toBe("LOCALHOST");
  const getThing = await createTool(owner.api, local.id, {
    name: "getThing",
    title: "Get a thing",
    method: "GET",
    path: "/things/{id}",
    pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    queryArgsJSONSchema: { type: "object", properties: { verbose: { type: "boolean" } } },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference, not a template
    headers: [{ key: "X-Api-Key", value: "${LOCALHOST_KEY}" }],
  });
  const createThing = await createTool(owner.api, local.id, {
    name: "createThing",
    method: "POST",
    path: "/things",
    reqBodyJSONSchema: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
    reqContentType: "application/x-www-form-urlencoded",
    reqBodyEncoding: { label: { style: "form", explode: true } },
    respBodyJSONSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
    outputSchemaMode: "EXACT",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference, not a template
    headers: [{ key: "X-Api-Key", value: "${LOCALHOST_KEY}" }],
  });
  await createTool(owner.api, local.id, { name: "notChosen", method: "DELETE", path: "/things" });
  const prompt = await createPrompt(owner.api, local.id);
  const resource = await createResource(owner.api, local.id);
  const oauth = await createProvider(owner.api, {
    name: `OAuth ${uniq()}`,
    baseURL: "https://api.oauth.example/v2",
    oauth2Config: {
      clientID: "export-client",
      clientSecret: secret,
      tokenURL: "https://auth.oauth.example/token",
    },
  });
  const listRepos = await createTool(owner.api, oauth.id, {
    name: "listRepos",
    method: "GET",
    path: "/repos",
    oauth2Scopes: ["repo:read"],
  });
  await createVariable(owner.api, { type: "SECRET", name: "LOCALHOST_KEY", value: `key-${secret}` });
  const server = await createServerRecord(owner.api, {
    name: `Things ${uniq()}`,
    description: "Thing tools",
    requestHeadersProxyEnabled: true,
    providers: [
      { id: local.id, tools: [{ id: createThing.id }, { id: getThing.id }] },
      { id: oauth.id, tools: [{ id: listRepos.id }] },
    ],
    prompts: [{ id: prompt.id }],
    resources: [{ id: resource.id }],
  });
  return { local, oauth, server, prompt, resource };
};

const importDocument = (api: Client, document: unknown, query = "") =>
  api.request("POST", `/servers/import${query}`, { body: document });

describe("GET /servers/{id}/export", () => {
  it("answers the document itself: chosen tools only, no id, timestamp, secretPrefix or secret", async () => {
    const owner = await svc.tenant("export");
    const secret = `client-secret-${randomBytes(12).toString("hex")}`;
    const { local, oauth, server, prompt, resource } = await buildSource(owner, secret);
    expect(plantedCount()).toBeGreaterThan(0);
    const res = await owner.api.get(`/servers/${server.id}/export`);
    expectStatus(res, 200);
    const doc = res.body;
    expect(Object.keys(doc)).toEqual(["format", "server", "providers", "variables"]);
    expect(doc.format).toBe("mcpsm.server.v1");
    expect(doc.server).toEqual({
      name: server.name,
      description: "Thing tools",
      requestHeadersProxyEnabled: true,
      dynamicToolDiscoveryEnabled: false,
      maxResultTokens: 25000,
    });
    expect(doc.providers.map((p: Json) => p.name)).toEqual([local.name, oauth.name]);
    expect(doc.providers[0].tools.map((t: Json) => t.name)).toEqual(["createThing", "getThing"]);
    expect(doc.providers[0].tools[0]).toMatchObject({
      reqContentType: "application/x-www-form-urlencoded",
      reqBodyEncoding: { label: { style: "form", explode: true } },
      respBodyJSONSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      outputSchemaMode: "EXACT",
    });
    expect(doc.providers[0].tools[1]).toMatchObject({
      reqContentType: "application/json",
      respBodyJSONSchema: null,
      outputSchemaMode: "LENIENT",
    });
    expect(doc.providers[0].prompts.map((p: Json) => p.name)).toEqual([prompt.name]);
    expect(doc.providers[0].resources.map((r: Json) => r.name)).toEqual([resource.name]);
    expect(doc.providers[1]).toMatchObject({
      baseURL: "https://api.oauth.example/v2",
      oauth2Config: { clientID: "export-client", authURL: "", tokenURL: "https://auth.oauth.example/token" },
      tools: [{ name: "listRepos", oauth2Scopes: ["repo:read"] }],
      prompts: [],
      resources: [],
    });
    expect(doc.variables).toEqual([{ name: "LOCALHOST_KEY", type: "SECRET" }]);
    const keys = new Set(keysOf(doc));
    for (const forbidden of ["id", "providerID", "createdAt", "updatedAt", "secretPrefix", "clientSecret", "valueHash"])
      expect(keys.has(forbidden), forbidden).toBe(false);
    expect(res.text).not.toContain(secret);
    expect(res.text).not.toContain(local.id);
  });

  it("another tenant's server, or a malformed id, answers as a missing one", async () => {
    const owner = await svc.tenant("export-owner");
    const server = await createServerRecord(owner.api);
    const stranger = await svc.tenant("export-stranger");
    expectProblem(await stranger.api.get(`/servers/${server.id}/export`), 404, "NOT_FOUND");
    expect(expectInvalid(await owner.api.get("/servers/bad-id/export"))).toEqual(["id"]);
  });
});

describe("export → import into another tenant", () => {
  it("serves the same tools/list, prompts and resources, and sends the same upstream requests", async () => {
    const source = await svc.tenant("roundtrip-source");
    const secret = `client-secret-${randomBytes(12).toString("hex")}`;
    const { server } = await buildSource(source, secret);
    const doc = (await source.api.get(`/servers/${server.id}/export`)).body;

    const target = await svc.tenant("roundtrip-target");
    const res = await importDocument(target.api, doc);
    expectCreated(res, `/servers/${res.body.server.id}`);
    expect(res.headers.get("etag")).toBe('W/"1"');
    const imported = res.body.server;
    expect(imported.id).toMatch(ID);
    expect(imported.name).toBe(server.name);
    expect(res.body.report).toMatchObject({
      providers: { reused: [], created: [{ name: doc.providers[0].name }, { name: doc.providers[1].name }] },
      tools: { matched: [] },
      missingVariables: [{ name: "LOCALHOST_KEY", type: "SECRET" }],
    });
    expect(res.body.report.tools.created.map((t: Json) => t.name)).toEqual(["createThing", "getThing", "listRepos"]);
    expect(res.body.report.warnings.map((w: Json) => w.path)).toEqual(["providers[1].oauth2Config"]);
    await createVariable(target.api, { type: "SECRET", name: "LOCALHOST_KEY", value: `key-${secret}` });
    // The imported server exports the same document (but the providers' revisions, which are the target's).
    const again = (await target.api.get(`/servers/${imported.id}/export`)).body;
    const withoutVersions = (d: Json) => ({ ...d, providers: d.providers.map(({ version: _, ...p }: Json) => p) });
    expect(withoutVersions(again)).toEqual(withoutVersions(doc));
    expect(again.providers.map((p: Json) => p.version)).toEqual([1, 1]);

    const sourceToken = (await createToken(source.api, server.id)).value;
    const targetToken = (await createToken(target.api, imported.id)).value;
    const calls = [
      { name: "getThing", arguments: { pathArgs: { id: "42" }, queryArgs: { verbose: true } } },
      { name: "createThing", arguments: { bodyArgs: { label: "new thing" } } },
    ];
    const observe = async (serverId: string, token: string) => {
      const client = await mcp(serverId, token);
      const tools = await client.listTools();
      const prompts = await client.listPrompts();
      const resources = await client.listResources();
      const start = recorded.length;
      const results = [];
      for (const call of calls) results.push(await client.callTool(call));
      await client.close();
      return { tools, prompts, resources, results, requests: recorded.slice(start) };
    };
    const before = await observe(server.id, sourceToken);
    const after = await observe(imported.id, targetToken);
    expect(before.tools.tools.map((t) => t.name)).toEqual(["createThing", "getThing", "listRepos"]);
    expect(after.tools).toEqual(before.tools);
    expect(after.prompts).toEqual(before.prompts);
    expect(after.resources).toEqual(before.resources);
    expect(before.requests).toHaveLength(2);
    expect(before.requests[0]).toMatchObject({ method: "GET", url: "/v1/things/42?verbose=true" });
    expect(before.requests[0]?.apiKey).toBe(`key-${secret}`);
    expect(after.requests).toEqual(before.requests);
    expect(after.results).toEqual(before.results);
  });
});

describe("POST /servers/import", () => {
  it("reuses the tenant's providers (same name and baseURL) and matches tools by method and path", async () => {
    const owner = await svc.tenant("import-reuse");
    const { server, local, oauth } = await buildSource(owner, `client-secret-${randomBytes(12).toString("hex")}`);
    const doc = (await owner.api.get(`/servers/${server.id}/export`)).body;
    // Same name: refused, nothing stored.
    const held = await holdings(owner.api);
    expectProblem(await importDocument(owner.api, doc), 409, "ALREADY_EXISTS");
    expect(await holdings(owner.api)).toEqual(held);

    const copy = { ...doc, server: { ...doc.server, name: `Copy ${uniq()}` } };
    const res = await importDocument(owner.api, copy);
    expectStatus(res, 201);
    expect(res.body.report.providers).toEqual({
      reused: [
        { id: local.id, name: local.name, baseURL: local.baseURL },
        { id: oauth.id, name: oauth.name, baseURL: oauth.baseURL },
      ],
      created: [],
    });
    expect(res.body.report.tools.created).toEqual([]);
    expect(res.body.report.tools.matched.map((t: Json) => [t.name, t.differs])).toEqual([
      ["createThing", []],
      ["getThing", []],
      ["listRepos", []],
    ]);
    expect(res.body.report.prompts).toMatchObject({ created: [], matched: [{ provider: local.name }] });
    expect(res.body.report.missingVariables).toEqual([]);
    expect(res.body.report.warnings).toEqual([]);
    const after = await holdings(owner.api);
    expect(after.providers).toEqual(held.providers);
    expect(after.servers).toHaveLength(held.servers.length + 1);
    expect(res.body.server.providers.map((p: Json) => p.id)).toEqual([local.id, oauth.id]);
  });

  it("creates a tool the reused provider lacks (provider:create), a new version of that provider", async () => {
    const owner = await svc.tenant("import-lacking");
    const provider = await createProvider(owner.api, { baseURL: "https://api.lacking.example" });
    const doc = {
      format: "mcpsm.server.v1",
      server: { name: `Lacking ${uniq()}` },
      providers: [
        {
          name: provider.name,
          baseURL: provider.baseURL,
          tools: [
            {
              method: "get",
              path: "/widgets/{widgetId}",
              name: "getWidget",
              pathArgsJSONSchema: {
                type: "object",
                properties: { widgetId: { type: "string" } },
                required: ["widgetId"],
              },
            },
          ],
          prompts: [],
          resources: [],
        },
      ],
      variables: [],
    };
    const held = await holdings(owner.api);
    const limited = svc.client(
      await svc.token(owner.id, ["server:create", "server:read", "server:list", "provider:list", "audit:read"]),
    );
    const refused = expectProblem(await importDocument(limited, doc), 403, "PERMISSION_DENIED");
    expect(refused.detail).toContain("provider:create");
    expect(await holdings(owner.api)).toEqual(held);

    const res = await importDocument(owner.api, doc);
    expectStatus(res, 201);
    expect(res.body.report.providers.reused).toEqual([
      { id: provider.id, name: provider.name, baseURL: provider.baseURL },
    ]);
    expect(res.body.report.tools.created).toEqual([
      { provider: provider.name, name: "getWidget", method: "GET", path: "/widgets/{widgetId}" },
    ]);
    const stored = (await owner.api.get(`/providers/${provider.id}`)).body.provider;
    expect(stored.version).toBe(2);
    expect(stored.tools.map((t: Json) => t.name)).toEqual(["getWidget"]);
    // The audit trail names the server, and only one event was recorded.
    const events = (await owner.api.get("/audit-events?limit=1000")).body;
    expect(events.matchCount).toBe(held.auditEvents + 1);
    expect(events.auditEvents[0]).toMatchObject({
      operation: "importServer",
      target: { kind: "server", id: res.body.server.id },
      versionBefore: 0,
      versionAfter: 1,
    });
    expect(events.auditEvents[0].fields).toEqual(expect.arrayContaining(["name", "providers", "tools"]));
  });

  it("a matched tool that differs is kept as the tenant has it, and the report says how it differs", async () => {
    const owner = await svc.tenant("import-differs");
    const provider = await createProvider(owner.api, { baseURL: "https://api.differs.example" });
    await createTool(owner.api, provider.id, { name: "listItems", method: "GET", path: "/items", title: "Mine" });
    const doc = {
      format: "mcpsm.server.v1",
      server: { name: `Differs ${uniq()}` },
      providers: [
        {
          name: provider.name,
          baseURL: provider.baseURL,
          tools: [{ method: "GET", path: "/items", name: "getItems", title: "Theirs" }],
          prompts: [],
          resources: [],
        },
      ],
      variables: [],
    };
    const res = await importDocument(owner.api, doc);
    expectStatus(res, 201);
    expect(res.body.report.tools.matched).toEqual([
      { provider: provider.name, name: "listItems", method: "GET", path: "/items", differs: ["name", "title"] },
    ]);
    expect(res.body.server.providers[0].tools.map((t: Json) => t.name)).toEqual(["listItems"]);
  });

  it("dryRun=true answers 200 with what the import would do and stores nothing", async () => {
    const source = await svc.tenant("dry-source");
    const { server } = await buildSource(source, `client-secret-${randomBytes(12).toString("hex")}`);
    const doc = (await source.api.get(`/servers/${server.id}/export`)).body;
    const target = await svc.tenant("dry-target");
    const held = await holdings(target.api);
    const dry = await importDocument(target.api, doc, "?dryRun=true");
    expectStatus(dry, 200);
    expect(dry.headers.get("location")).toBeNull();
    expect(dry.body.server.id).toBeUndefined();
    expect(dry.body.server.providers.map((p: Json) => p.id)).toEqual([undefined, undefined]);
    expect(keysOf(dry.body.server)).not.toContain("id");
    expect(await holdings(target.api)).toEqual(held);
    const real = await importDocument(target.api, doc, "?dryRun=false");
    expectStatus(real, 201);
    const withoutIds = (report: Json) => JSON.parse(JSON.stringify(report, (k, v) => (k === "id" ? undefined : v)));
    expect(withoutIds(dry.body.report)).toEqual(withoutIds(real.body.report));
  });

  it("a refusal half-way (a provider name taken with another baseURL) stores nothing", async () => {
    const owner = await svc.tenant("import-refused");
    const taken = await createProvider(owner.api, { baseURL: "https://api.taken.example" });
    const doc = {
      format: "mcpsm.server.v1",
      server: { name: `Refused ${uniq()}` },
      providers: [
        {
          name: `Fresh ${uniq()}`,
          baseURL: "https://api.fresh.example",
          tools: [{ method: "GET", path: "/a", name: "getA" }],
          prompts: [{ name: "A prompt" }],
          resources: [{ name: "A resource", uri: "https://api.fresh.example/a" }],
        },
        { name: taken.name, baseURL: "https://api.other.example", tools: [], prompts: [], resources: [] },
      ],
      variables: [],
    };
    const held = await holdings(owner.api);
    const problem = expectProblem(await importDocument(owner.api, doc), 409, "ALREADY_EXISTS");
    expect(problem.detail).toContain("providers[1]");
    expect(await holdings(owner.api)).toEqual(held);
    const dry = await importDocument(owner.api, doc, "?dryRun=true");
    expectProblem(dry, 409, "ALREADY_EXISTS");
  });

  it("concurrent imports of one document into one tenant: one server, one copy of each provider", async () => {
    const owner = await svc.tenant("import-race");
    const doc = {
      format: "mcpsm.server.v1",
      server: { name: `Race ${uniq()}` },
      providers: [
        {
          name: `Raced ${uniq()}`,
          baseURL: "https://api.raced.example",
          tools: [{ method: "GET", path: "/r", name: "getR" }],
          prompts: [],
          resources: [],
        },
      ],
      variables: [],
    };
    const answers = await Promise.all(Array.from({ length: 4 }, () => importDocument(owner.api, doc)));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const res of answers.filter((r) => r.status === 409)) expectProblem(res, 409, "ALREADY_EXISTS");
    const held = await holdings(owner.api);
    expect(held.servers).toHaveLength(1);
    expect(held.providers.map((p: Json) => [p.name, p.tools.length])).toEqual([[doc.providers[0]?.name, 1]]);
  });

  it("a quota reached half-way stores nothing (429)", async () => {
    const small = await startTestService({ quotas: { providersPerTenant: 2 } });
    try {
      const owner = await small.tenant("import-quota");
      await createProvider(owner.api);
      const provider = (i: number) => ({
        name: `Quota ${i} ${uniq()}`,
        baseURL: `https://api${i}.quota.example`,
        tools: [],
        prompts: [],
        resources: [],
      });
      const doc = {
        format: "mcpsm.server.v1",
        server: { name: "Quota" },
        providers: [provider(1), provider(2)],
        variables: [],
      };
      const held = await holdings(owner.api);
      expectProblem(await importDocument(owner.api, doc), 429, "RESOURCE_EXHAUSTED");
      expect(await holdings(owner.api)).toEqual(held);
    } finally {
      await small.close();
    }
  });

  it("validates the document, naming the path of every problem", async () => {
    const owner = await svc.tenant("import-invalid");
    const doc = {
      format: "mcpsm.server.v2",
      server: { name: "" },
      providers: [
        {
          name: "P",
          baseURL: "ftp://nope",
          oauth2Config: { clientID: "c", clientSecret: "not in an export" },
          tools: [
            { method: "GET", path: "/a/{x}", name: "Bad-Name" },
            { method: "GET", path: "/b", name: "same" },
            { method: "POST", path: "/c", name: "same" },
          ],
          prompts: [],
          resources: [],
          id: "AAAAAAAAAAA",
        },
      ],
      variables: [{ name: "1BAD", type: "PLAIN" }],
    };
    const paths = expectInvalid(await importDocument(owner.api, doc));
    expect(paths).toEqual(
      expect.arrayContaining([
        "format",
        "server.name",
        "providers[0].baseURL",
        "providers[0].oauth2Config.clientSecret",
        "providers[0].tools[0].name",
        "providers[0].id",
        "variables[0].name",
        "variables[0].type",
      ]),
    );
    // Past the schema: a repeated name, a placeholder its schema does not declare.
    const second = {
      format: "mcpsm.server.v1",
      server: { name: "Second" },
      providers: [
        {
          name: "P",
          baseURL: "https://api.p.example",
          tools: [
            { method: "GET", path: "/a/{x}", name: "getA" },
            { method: "POST", path: "/b", name: "getA" },
            { method: "get", path: "/a/{y}", name: "getOther" },
          ],
          prompts: [],
          resources: [],
        },
        { name: "P", baseURL: "https://api.p.example", tools: [], prompts: [], resources: [] },
      ],
      variables: [],
    };
    expect(expectInvalid(await importDocument(owner.api, second)).sort()).toEqual(
      [
        "providers[0].tools[0].pathArgsJSONSchema",
        "providers[0].tools[1].name",
        "providers[0].tools[2].path",
        "providers[0].tools[2].pathArgsJSONSchema",
        "providers[1].name",
      ].sort(),
    );
    expect(expectInvalid(await importDocument(owner.api, [1, 2]))).toEqual([""]);
    expect(expectInvalid(await importDocument(owner.api, second, "?dryRun=yes"))).toEqual(["dryRun"]);
    expect(expectInvalid(await importDocument(owner.api, second, "?dry=true"))).toEqual(["dry"]);
    expect((await holdings(owner.api)).servers).toEqual([]);
  });

  it("bounds hostile documents like every write body: size, depth, counts", async () => {
    const owner = await svc.tenant("import-hostile");
    const big = {
      format: "mcpsm.server.v1",
      server: { name: "Big", description: "x".repeat(2 * 1024 * 1024) },
      providers: [],
      variables: [],
    };
    expectProblem(await importDocument(owner.api, big), 413, "PAYLOAD_TOO_LARGE");
    let deep: Json = {};
    for (let i = 0; i < 200; i++) deep = { type: "object", properties: { a: deep } };
    const nested = {
      format: "mcpsm.server.v1",
      server: { name: "Deep" },
      providers: [
        {
          name: "D",
          baseURL: "https://api.d.example",
          tools: [{ method: "POST", path: "/d", name: "postD", reqBodyJSONSchema: deep }],
          prompts: [],
          resources: [],
        },
      ],
      variables: [],
    };
    expect([400, 413]).toContain((await importDocument(owner.api, nested)).status);
    const many = {
      format: "mcpsm.server.v1",
      server: { name: "Many" },
      providers: Array.from({ length: 1001 }, (_, i) => ({
        name: `P${i}`,
        baseURL: "https://api.many.example",
        tools: [],
        prompts: [],
        resources: [],
      })),
      variables: [],
    };
    expect(expectInvalid(await importDocument(owner.api, many))).toContain("providers");
    expect((await holdings(owner.api)).servers).toEqual([]);
  });

  it("the OpenAPI document publishes the document format as a JSON Schema", async () => {
    const res = await svc.client().get("/openapi.json");
    const schemas = res.body.components.schemas;
    expect(schemas.ServerExportDocument).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["format", "server", "providers", "variables"]),
    });
    const operation = res.body.paths["/servers/import"].post;
    expect(operation.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ServerExportDocument",
    });
    expect(operation.parameters.map((p: Json) => p.name)).toEqual(["dryRun"]);
    expect(res.body.paths["/servers/{id}/export"].get.responses[200].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ServerExportDocument",
    });
  });
});
