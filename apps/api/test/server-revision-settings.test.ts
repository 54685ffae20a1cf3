import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EchoUpstream, startEchoUpstream } from "./support/echo-upstream.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";

// docs/api-rules.md §21 with §20: a revision keeps the server's per-tool settings (alias, description, pinned
// arguments, approval) and its approval policy; a restore puts the earlier ones back, as the server answer and
// an MCP client see them; the diff names each changed setting. Runs on memory and, with TEST_DATABASE_URL,
// PostgreSQL.

let svc: TestService;
let upstream: EchoUpstream;
let owner: Tenant;
const ids = { provider: "", tool: "", server: "", token: "" };

beforeAll(async () => {
  upstream = await startEchoUpstream();
  svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
  owner = await svc.tenant("revision-settings");
  const provider = await owner.api.post("/providers", { provider: { name: "Tracker", baseURL: upstream.baseURL } });
  ids.provider = provider.body.provider.id;
  const tool = await owner.api.post(`/providers/${ids.provider}/tools`, {
    tool: {
      name: "createIssue",
      description: "Create an issue",
      method: "POST",
      path: "/orgs/{org}/issues",
      pathArgsJSONSchema: { type: "object", properties: { org: { type: "string" } }, required: ["org"] },
      reqBodyJSONSchema: { type: "object", properties: { title: { type: "string" } } },
    },
  });
  ids.tool = tool.body.tool.id;
  const server = await owner.api.post("/servers", {
    server: { name: "Tracker revisions", providers: [{ id: ids.provider }] },
  });
  ids.server = server.body.server.id;
  ids.token = (await owner.api.post(`/servers/${ids.server}/tokens`, { token: { name: "t" } })).body.token.value;
});

afterAll(async () => {
  await svc?.close();
  await upstream?.close();
});

/** What an MCP client (without URL elicitation) sees of the server: its tools and one call's answer. */
const seenOverMcp = async (name: string) => {
  const client = new Client({ name: "revision-settings-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${ids.server}`), {
      requestInit: { headers: { Authorization: `Bearer ${ids.token}` } },
    }),
  );
  try {
    const { tools } = await client.listTools();
    const call = await client.callTool({ name, arguments: { pathArgs: { org: "x" }, bodyArgs: { title: "T" } } });
    const text = (call.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");
    return { tools, call, text };
  } finally {
    await client.close();
  }
};

const settingsPatch = (tool: object) => owner.api.patch(`/servers/${ids.server}/tools/${ids.tool}`, { tool });

describe("revisions and per-server tool settings", () => {
  it("a restore puts back the earlier settings and policy; the diff names each changed setting", async () => {
    const first = await settingsPatch({
      alias: "openAcmeIssue",
      description: "Open an Acme issue",
      fixedArgs: { pathArgs: { org: "acme" } },
      approval: "ALWAYS",
    });
    expect(first.status, first.text).toBe(200);
    const policy = await owner.api.patch(`/servers/${ids.server}`, { server: { approvalPolicy: "DESTRUCTIVE" } });
    expect(policy.status, policy.text).toBe(200);
    const earlier = (await owner.api.get(`/servers/${ids.server}`)).body.server;
    const earlierSettings = earlier.providers[0].tools[0].serverSettings;
    expect(earlierSettings).toEqual({
      alias: "openAcmeIssue",
      description: "Open an Acme issue",
      fixedArgs: { pathArgs: { org: "acme" } },
      approval: "ALWAYS",
    });

    // Change every setting and the policy.
    expect(
      (
        await settingsPatch({
          alias: "fileIssue",
          description: "File an issue",
          fixedArgs: { bodyArgs: { title: "pinned" } },
          approval: "NEVER",
        })
      ).status,
    ).toBe(200);
    expect((await owner.api.patch(`/servers/${ids.server}`, { server: { approvalPolicy: "WRITES" } })).status).toBe(
      200,
    );
    const changed = await seenOverMcp("fileIssue");
    expect(changed.tools.map((t) => t.name)).toEqual(["fileIssue"]);
    expect(changed.call.isError ?? false, changed.text).toBe(false);

    // The diff from the earlier version to the current one names each setting that changed.
    const current = (await owner.api.get(`/servers/${ids.server}`)).body.server.version;
    const diff = await owner.api.get(`/servers/${ids.server}/revisions/${current}/diff?against=${earlier.version}`);
    expect(diff.status, diff.text.slice(0, 300)).toBe(200);
    expect(diff.body.fields).toContainEqual({
      path: "server.approvalPolicy",
      before: "DESTRUCTIVE",
      after: "WRITES",
    });
    const provider = diff.body.members.find((m: { kind: string }) => m.kind === "provider");
    const tool = provider.members.find((m: { name: string }) => m.name === "createIssue");
    expect(tool).toMatchObject({ kind: "tool", change: "changed" });
    const paths = tool.fields.map((f: { path: string }) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "serverSettings.alias",
        "serverSettings.description",
        "serverSettings.approval",
        // A pinned part gone or new is one field; inside a part kept, each name would be one.
        "serverSettings.fixedArgs.pathArgs",
        "serverSettings.fixedArgs.bodyArgs",
      ]),
    );
    expect(tool.fields).toContainEqual({ path: "serverSettings.alias", before: "openAcmeIssue", after: "fileIssue" });
    expect(tool.fields).toContainEqual({ path: "serverSettings.approval", before: "ALWAYS", after: "NEVER" });
    expect(tool.fields).toContainEqual({ path: "serverSettings.fixedArgs.pathArgs", before: { org: "acme" } });

    // Restore the earlier version: the server answer and the MCP view are the earlier ones again.
    const restored = await owner.api.post(`/servers/${ids.server}/revisions/${earlier.version}/restore`, {
      server: {},
    });
    expect(restored.status, restored.text.slice(0, 300)).toBe(200);
    expect(restored.body.server.version).toBe(current + 1);
    expect(restored.body.server.approvalPolicy).toBe("DESTRUCTIVE");
    expect(restored.body.server.providers[0].tools[0].serverSettings).toEqual(earlierSettings);
    expect(restored.body.diff.fields).toContainEqual({
      path: "server.approvalPolicy",
      before: "WRITES",
      after: "DESTRUCTIVE",
    });
    const stored = (await owner.api.get(`/servers/${ids.server}/tools/${ids.tool}`)).body.tool;
    expect(stored.serverSettings).toEqual(earlierSettings);

    const seen = await seenOverMcp("openAcmeIssue");
    expect(seen.tools.map((t) => t.name)).toEqual(["openAcmeIssue"]);
    const offered = seen.tools[0];
    expect(offered?.description).toBe("Open an Acme issue");
    const schema = offered?.inputSchema as { properties: Record<string, unknown> };
    expect(schema.properties.pathArgs).toBeUndefined();
    expect(schema.properties.bodyArgs).toBeDefined();
    // Approval ALWAYS again: the call is held with the approval page's URL.
    expect(seen.call.isError).toBe(true);
    expect(seen.text).toContain(`${svc.url}/approvals/`);
  });

  it("restoring a version without settings clears the settings and the policy added since", async () => {
    const server = await owner.api.post("/servers", {
      server: { name: "Plain revisions", providers: [{ id: ids.provider }] },
    });
    const id = server.body.server.id;
    const plain = server.body.server.version;
    await owner.api.patch(`/servers/${id}/tools/${ids.tool}`, { tool: { alias: "later", approval: "ALWAYS" } });
    await owner.api.patch(`/servers/${id}`, { server: { approvalPolicy: "WRITES" } });
    const restored = await owner.api.post(`/servers/${id}/revisions/${plain}/restore`, { server: {} });
    expect(restored.status, restored.text.slice(0, 300)).toBe(200);
    expect(restored.body.server.approvalPolicy).toBe("NONE");
    expect(restored.body.server.providers[0].tools[0].serverSettings).toBeUndefined();
    const tool = (await owner.api.get(`/servers/${id}/tools/${ids.tool}`)).body.tool;
    expect(tool.serverSettings).toEqual({ alias: "", description: "", fixedArgs: {}, approval: "INHERIT" });
  });
});
