import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EchoUpstream, startEchoUpstream } from "./support/echo-upstream.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { expectInvalid } from "./support/problems.js";

// docs/api-rules.md §20, the settings half: a server offers a provider tool under its own alias and
// description, with pinned arguments that vanish from the schema its callers see and that no caller can
// change (tools/call and useTool alike); export and import carry the settings. Run by both SDK eras.

let svc: TestService;
let upstream: EchoUpstream;
let owner: Tenant;
const ids = { provider: "", tool: "", other: "", server: "", discovery: "", token: "", discoveryToken: "" };

const ERAS = ["2025-11-25", "2026-07-28"] as const;

const connect = async (serverId: string, token: string, era: (typeof ERAS)[number]) => {
  const client = new Client(
    { name: "settings-test", version: "1" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${serverId}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

beforeAll(async () => {
  upstream = await startEchoUpstream();
  svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
  owner = await svc.tenant("settings");
  const provider = await owner.api.post("/providers", { provider: { name: "Tracker", baseURL: upstream.baseURL } });
  ids.provider = provider.body.provider.id;
  const tool = await owner.api.post(`/providers/${ids.provider}/tools`, {
    tool: {
      name: "createIssue",
      description: "Create an issue",
      method: "POST",
      path: "/orgs/{org}/issues",
      pathArgsJSONSchema: { type: "object", properties: { org: { type: "string" } }, required: ["org"] },
      queryArgsJSONSchema: { type: "object", properties: { region: { type: "string" }, dryRun: { type: "boolean" } } },
      reqBodyJSONSchema: {
        type: "object",
        properties: { title: { type: "string" }, label: { type: "string" } },
        required: ["title", "label"],
      },
    },
  });
  ids.tool = tool.body.tool.id;
  const other = await owner.api.post(`/providers/${ids.provider}/tools`, {
    tool: { name: "listIssues", method: "GET", path: "/issues" },
  });
  ids.other = other.body.tool.id;
  for (const [key, discovery] of [
    ["server", false],
    ["discovery", true],
  ] as const) {
    const server = await owner.api.post("/servers", {
      server: { name: `Tracker ${key}`, dynamicToolDiscoveryEnabled: discovery, providers: [{ id: ids.provider }] },
    });
    ids[key] = server.body.server.id;
    const settings = await owner.api.patch(`/servers/${ids[key]}/tools/${ids.tool}`, {
      tool: {
        alias: "openAcmeIssue",
        description: "Open an issue in the Acme organisation (EU)",
        fixedArgs: { pathArgs: { org: "acme" }, queryArgs: { region: "eu" }, bodyArgs: { label: "agent" } },
      },
    });
    expect(settings.status, settings.text).toBe(200);
  }
  ids.token = (await owner.api.post(`/servers/${ids.server}/tokens`, { token: { name: "t" } })).body.token.value;
  ids.discoveryToken = (
    await owner.api.post(`/servers/${ids.discovery}/tokens`, { token: { name: "t" } })
  ).body.token.value;
});

afterAll(async () => {
  await svc?.close();
  await upstream?.close();
});

describe("GET|PATCH /servers/{id}/tools/{toolID}", () => {
  it("shows the settings, in the server answer too, and a PATCH bumps the server's version", async () => {
    const one = await owner.api.get(`/servers/${ids.server}/tools/${ids.tool}`);
    expect(one.status).toBe(200);
    expect(one.body.tool).toMatchObject({
      id: ids.tool,
      name: "createIssue",
      serverSettings: {
        alias: "openAcmeIssue",
        description: "Open an issue in the Acme organisation (EU)",
        fixedArgs: { pathArgs: { org: "acme" }, queryArgs: { region: "eu" }, bodyArgs: { label: "agent" } },
        approval: "INHERIT",
      },
    });
    const plain = await owner.api.get(`/servers/${ids.server}/tools/${ids.other}`);
    expect(plain.body.tool.serverSettings).toEqual({ alias: "", description: "", fixedArgs: {}, approval: "INHERIT" });
    const server = await owner.api.get(`/servers/${ids.server}`);
    expect(server.body.server.version).toBe(2);
    expect(server.body.server.approvalPolicy).toBe("NONE");
    const [chosen, untouched] = server.body.server.providers[0].tools;
    expect(chosen.serverSettings).toEqual(one.body.tool.serverSettings);
    // A tool without settings shows none, so its record is the provider's.
    expect(untouched.serverSettings).toBeUndefined();
    const same = await owner.api.patch(`/servers/${ids.server}/tools/${ids.tool}`, {
      tool: { alias: "openAcmeIssue" },
    });
    expect(same.status).toBe(200);
    expect((await owner.api.get(`/servers/${ids.server}`)).body.server.version).toBe(2);
  });

  it("refuses a bad alias, an unknown pinned argument and unknown fields with 400, naming each", async () => {
    const bad = await owner.api.patch(`/servers/${ids.server}/tools/${ids.tool}`, {
      tool: { alias: "Not-A-Name", approval: "SOMETIMES", extra: 1 },
    });
    expect(expectInvalid(bad).sort()).toEqual(["tool.alias", "tool.approval", "tool.extra"]);
    const unknown = await owner.api.patch(`/servers/${ids.server}/tools/${ids.tool}`, {
      tool: { fixedArgs: { pathArgs: { org: "x", nope: 1 }, queryArgs: { missing: true } } },
    });
    expect(expectInvalid(unknown).sort()).toEqual(["tool.fixedArgs.pathArgs.nope", "tool.fixedArgs.queryArgs.missing"]);
  });

  it("an alias taken by another tool of the server is 409; the other tool's own name is free once aliased", async () => {
    const taken = await owner.api.patch(`/servers/${ids.server}/tools/${ids.other}`, {
      tool: { alias: "openAcmeIssue" },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe("ALREADY_EXISTS");
    const free = await owner.api.patch(`/servers/${ids.server}/tools/${ids.other}`, { tool: { alias: "createIssue" } });
    expect(free.status).toBe(200);
    const back = await owner.api.patch(`/servers/${ids.server}/tools/${ids.other}`, { tool: { alias: "" } });
    expect(back.body.tool.serverSettings.alias).toBe("");
  });

  it("a tool not in the server, and another tenant's server, answer 404", async () => {
    const loose = await owner.api.post(`/providers/${ids.provider}/tools`, {
      tool: { name: "loose", method: "GET", path: "/loose" },
    });
    expect((await owner.api.get(`/servers/${ids.server}/tools/${loose.body.tool.id}`)).status).toBe(404);
    expect((await owner.api.patch(`/servers/${ids.server}/tools/${loose.body.tool.id}`, { tool: {} })).status).toBe(
      404,
    );
    const stranger = await svc.tenant("stranger");
    expect((await stranger.api.get(`/servers/${ids.server}/tools/${ids.tool}`)).status).toBe(404);
    expect(
      (await stranger.api.patch(`/servers/${ids.server}/tools/${ids.tool}`, { tool: { alias: "mine" } })).status,
    ).toBe(404);
  });

  it("POST /servers/{id}/tools takes the settings with the tool; taking the tool out drops them", async () => {
    const server = await owner.api.post("/servers", { server: { name: "Added", providers: [] } });
    const id = server.body.server.id;
    const added = await owner.api.post(`/servers/${id}/tools`, {
      tool: { providerID: ids.provider, toolID: ids.other, alias: "issues", approval: "ALWAYS" },
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.tool.serverSettings).toMatchObject({ alias: "issues", approval: "ALWAYS" });
    expect((await owner.api.delete(`/servers/${id}/tools/${ids.other}`)).status).toBe(204);
    await owner.api.post(`/servers/${id}/tools`, { tool: { providerID: ids.provider, toolID: ids.other } });
    const again = await owner.api.get(`/servers/${id}/tools/${ids.other}`);
    expect(again.body.tool.serverSettings).toEqual({ alias: "", description: "", fixedArgs: {}, approval: "INHERIT" });
  });
});

describe.each(ERAS)("over MCP (%s)", (era) => {
  it("tools/list offers the alias and description, without the pinned arguments", async () => {
    const client = await connect(ids.server, ids.token, era);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["listIssues", "openAcmeIssue"]);
      const offered = tools.find((t) => t.name === "openAcmeIssue");
      expect(offered?.description).toBe("Open an issue in the Acme organisation (EU)");
      const schema = offered?.inputSchema as {
        properties: Record<string, { properties?: object; required?: unknown }>;
      };
      expect(schema.properties.pathArgs).toBeUndefined();
      expect(Object.keys(schema.properties.queryArgs?.properties ?? {})).toEqual(["dryRun"]);
      expect(Object.keys(schema.properties.bodyArgs?.properties ?? {})).toEqual(["title"]);
      expect(schema.properties.bodyArgs?.required).toEqual(["title"]);
    } finally {
      await client.close();
    }
  });

  it("tools/call merges the pinned values over whatever the caller sends", async () => {
    const client = await connect(ids.server, ids.token, era);
    try {
      const result = await client.callTool({
        name: "openAcmeIssue",
        arguments: {
          pathArgs: { org: "evil" },
          queryArgs: { region: "us", dryRun: true },
          bodyArgs: { title: "Broken", label: "mine" },
        },
      });
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      expect(result.structuredContent).toMatchObject({
        method: "POST",
        url: "/orgs/acme/issues?region=eu&dryRun=true",
      });
      expect(JSON.parse((result.structuredContent as { body: string }).body)).toEqual({
        title: "Broken",
        label: "agent",
      });
      // The provider's own name is not served here.
      const old = await client.callTool({ name: "createIssue", arguments: {} }).catch((e: Error) => e);
      expect(old instanceof Error || (old as { isError?: boolean }).isError === true).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("searchTools shows the alias and description; useTool applies the pinned values too", async () => {
    const client = await connect(ids.discovery, ids.discoveryToken, era);
    try {
      const found = await client.callTool({ name: "searchTools", arguments: { query: "open issue acme" } });
      const hits = (found.structuredContent as { tools: Array<{ name: string; description: string }> }).tools;
      expect(hits[0]).toMatchObject({
        name: "openAcmeIssue",
        description: "Open an issue in the Acme organisation (EU)",
      });
      const definition = await client.callTool({ name: "getToolDefinition", arguments: { name: "openAcmeIssue" } });
      const input = (definition.structuredContent as { inputSchema: { properties: Record<string, unknown> } })
        .inputSchema;
      expect(Object.keys(input.properties).sort()).toEqual(["bodyArgs", "queryArgs"]);
      const used = await client.callTool({
        name: "useTool",
        arguments: {
          name: "openAcmeIssue",
          arguments: { pathArgs: { org: "evil" }, queryArgs: { region: "us" }, bodyArgs: { title: "T", label: "x" } },
        },
      });
      expect(used.isError ?? false, JSON.stringify(used.content)).toBe(false);
      expect(used.structuredContent).toMatchObject({ url: "/orgs/acme/issues?region=eu" });
      expect(JSON.parse((used.structuredContent as { body: string }).body)).toEqual({ title: "T", label: "agent" });
    } finally {
      await client.close();
    }
  });
});

describe("export and import", () => {
  it("carry the settings and the approval policy into another tenant", async () => {
    await owner.api.patch(`/servers/${ids.server}`, { server: { approvalPolicy: "WRITES" } });
    const doc = await owner.api.get(`/servers/${ids.server}/export`);
    expect(doc.status).toBe(200);
    expect(doc.body.server.approvalPolicy).toBe("WRITES");
    const exported = doc.body.providers[0].tools.find((t: { name: string }) => t.name === "createIssue");
    expect(exported.serverSettings).toMatchObject({ alias: "openAcmeIssue", fixedArgs: { pathArgs: { org: "acme" } } });
    const other = await svc.tenant("importer");
    const imported = await other.api.post("/servers/import", doc.body);
    expect(imported.status, imported.text).toBe(201);
    const server = imported.body.server;
    expect(server.approvalPolicy).toBe("WRITES");
    const tool = server.providers[0].tools.find((t: { name: string }) => t.name === "createIssue");
    expect(tool.serverSettings).toEqual(exported.serverSettings);
    // The round trip is exact: exporting the imported server gives the same document.
    const again = await other.api.get(`/servers/${server.id}/export`);
    expect(again.body.providers[0].tools).toEqual(doc.body.providers[0].tools);
    await owner.api.patch(`/servers/${ids.server}`, { server: { approvalPolicy: "NONE" } });
  });
});
