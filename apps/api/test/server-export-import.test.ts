import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { plantedCount } from "./support/planted-secrets.js";
import { expectCreated, expectInvalid, expectProblem, expectStatus, ID } from "./support/problems.js";
import {
  createProvider,
  createServer as createServerRecord,
  createToken,
  createTool,
  createVariable,
  uniq,
} from "./support/records.js";
import {
  type Json,
  buildSource,
  holdings,
  importDocument,
  keysOf,
  mcp,
  recorded,
  svc,
  useExportImportWorld,
} from "./support/export-import-world.js";

// docs/api-rules.md §16: a server exported by one tenant and imported by another serves the same MCP tools and
// sends the same upstream requests; the export holds no secret; an import is one transaction (a refusal or a
// dry run stores nothing); the document is validated with every problem located.

useExportImportWorld();

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
});
