import { testActor } from "@mcpsm/domain/testing";
import { OPERATIONS, type Operation } from "@mcpsm/domain/use-cases";
import { Storage } from "@mcpsm/domain/storage";
import { describe, expect, it } from "vitest";
import { caller, inTable, services } from "./support/use-case-caller.js";

// Every management use case, called directly on the memory store: no HTTP app, no wire decoding. The inputs
// are the typed inputs a library caller builds.

describe("every use case on the memory store", () => {
  const called = new Set<Operation>();
  const alice = testActor("alice");

  it("runs a team's whole workflow: providers, their children, variables, servers, members and tokens", async () => {
    const runtime = services();
    const { ok, failure } = caller(runtime, called);

    const provider = await ok(alice, "createProvider", {
      provider: { name: "GitHub", baseURL: "https://api.github.com", oauth2Config: { clientSecret: "s3cret" } },
    });
    expect(provider).toMatchObject({ name: "GitHub", version: 1, secretPrefix: "API_GITHUB_COM" });
    expect(provider.oauth2Config).not.toHaveProperty("clientSecret");
    const providerId = provider.id;
    expect((await ok(alice, "getProvider", { providerId })).id).toBe(providerId);
    const updatedProvider = await ok(alice, "updateProvider", {
      providerId,
      provider: { description: "the GitHub REST API" },
      expectedVersion: 1,
    });
    expect(updatedProvider.version).toBe(2);
    expect(
      await failure(alice, "updateProvider", { providerId, provider: { name: "x" }, expectedVersion: 1 }),
    ).toMatchObject({
      _tag: "PreconditionFailed",
    });

    const tool = await ok(alice, "createProviderTool", {
      providerId,
      tool: {
        name: "getRepo",
        method: "GET",
        path: "/repos/{owner}/{repo}",
        pathArgsJSONSchema: {
          type: "object",
          properties: { owner: { type: "string" }, repo: { type: "string" } },
          required: ["owner", "repo"],
        },
      },
    });
    const toolId = tool.id;
    expect((await ok(alice, "getProviderTool", { providerId, toolId })).name).toBe("getRepo");
    expect((await ok(alice, "listProviderTools", { providerId })).tools.map((t) => t.id)).toEqual([toolId]);
    expect(
      (await ok(alice, "updateProviderTool", { providerId, toolId, tool: { title: "Get a repository" } })).title,
    ).toBe("Get a repository");

    const prompt = await ok(alice, "createProviderPrompt", {
      providerId,
      prompt: { name: "triage", messages: [{ role: "user", content: { type: "text", text: "Triage {{issue}}" } }] },
    });
    const promptId = prompt.id;
    expect((await ok(alice, "getProviderPrompt", { providerId, promptId })).name).toBe("triage");
    expect((await ok(alice, "listProviderPrompts", { providerId })).map((p) => p.id)).toEqual([promptId]);
    expect(
      (await ok(alice, "updateProviderPrompt", { providerId, promptId, prompt: { description: "d" } })).description,
    ).toBe("d");

    const resource = await ok(alice, "createProviderResource", {
      providerId,
      resource: { name: "readme", uri: "https://example.com/README.md" },
    });
    const resourceId = resource.id;
    expect((await ok(alice, "getProviderResource", { providerId, resourceId })).uri).toBe(
      "https://example.com/README.md",
    );
    expect((await ok(alice, "listProviderResources", { providerId })).map((r) => r.id)).toEqual([resourceId]);
    expect(
      (await ok(alice, "updateProviderResource", { providerId, resourceId, resource: { mimeType: "text/markdown" } }))
        .mimeType,
    ).toBe("text/markdown");

    const page = await ok(alice, "listProviders", { nameContains: "git", limit: 10 });
    expect(page).toMatchObject({ matchCount: 1, nextToken: "" });
    // Each write of a tool, prompt or resource was a new version of the provider.
    expect(page.providers[0]?.version).toBe(8);

    const variable = await ok(alice, "createVariable", {
      variable: { type: "SECRET", name: "API_GITHUB_COM_TOKEN", value: "ghp_x" },
    });
    const variableId = variable.id;
    expect(variable.value).toBe("***");
    expect((await ok(alice, "getVariable", { variableId })).name).toBe("API_GITHUB_COM_TOKEN");
    expect((await ok(alice, "listVariables", {})).map((v) => v.id)).toEqual([variableId]);
    expect((await ok(alice, "updateVariable", { variableId, variable: { value: "ghp_y" } })).value).toBe("***");

    const server = await ok(alice, "createServer", { server: { name: "github", providers: [{ id: providerId }] } });
    const serverId = server.id;
    expect(server.providers[0]?.tools.map((t) => t.id)).toEqual([toolId]);
    expect((await ok(alice, "getServer", { serverId })).name).toBe("github");
    const exported = await ok(alice, "exportServer", { serverId });
    expect(exported).toMatchObject({
      format: "mcpsm.server.v1",
      server: { name: "github" },
      providers: [{ name: "GitHub", tools: [{ method: "GET" }] }],
    });
    const imported = await ok(testActor("bob"), "importServer", { document: exported });
    expect(imported.result.report.providers.created.map((p) => p.name)).toEqual(["GitHub"]);
    expect((await ok(alice, "listServers", {})).map((s) => s.id)).toEqual([serverId]);
    const renamed = await ok(alice, "updateServer", { serverId, server: { name: "GitHub" }, expectedVersion: 1 });
    expect(renamed).toMatchObject({ name: "GitHub", version: 2 });

    // Revisions (docs/api-rules.md §21): one per version, compared and restored.
    const history = await ok(alice, "listServerRevisions", { serverId, query: {} });
    expect(history.revisions.map((r) => r.version)).toEqual([2, 1]);
    expect(await ok(alice, "getServerRevision", { serverId, version: 1 })).toEqual(exported);
    const diff = await ok(alice, "diffServerRevisions", { serverId, version: 2 });
    expect(diff.fields).toEqual([{ path: "server.name", before: "github", after: "GitHub" }]);
    const restored = await ok(alice, "restoreServerRevision", { serverId, version: 1, body: { version: 2 } });
    expect(restored.server).toMatchObject({ name: "github", version: 3 });
    await ok(alice, "updateServer", { serverId, server: { name: "GitHub" } });

    // Per-server tool settings (docs/api-rules.md §20), approvals, caller values (§23), the call log (§24) and
    // the shape preview (§19): each reachable through the domain with its scope.
    expect(await ok(alice, "getServerTool", { serverId, toolId })).toMatchObject({
      id: toolId,
      serverSettings: { alias: "", description: "", fixedArgs: {}, approval: "INHERIT" },
    });
    const described = await ok(alice, "updateServerTool", { serverId, toolId, tool: { description: "Here" } });
    expect(described.serverSettings).toMatchObject({ description: "Here", alias: "" });
    expect(await ok(alice, "listApprovals", {})).toEqual([]);
    expect(
      await failure(alice, "decideApproval", { approvalId: "Napproval01", decision: { decision: "DENY" } }),
    ).toMatchObject({ _tag: "NotFound", kind: "approval" });
    expect(await ok(alice, "listCallerValues", { variableId })).toEqual({ callerValues: [] });
    expect(
      await failure(alice, "deleteCallerValue", { variableId, principal: "server-token:Ntoken00001" }),
    ).toMatchObject({ _tag: "NotFound", kind: "callerValue" });
    expect(await ok(alice, "listServerCalls", { serverId, query: {} })).toEqual({
      calls: [],
      matchCount: 0,
      nextToken: "",
    });
    expect((await ok(alice, "getServerUsage", { serverId, query: {} })).totals).toMatchObject({ calls: 0, errors: 0 });
    expect((await ok(alice, "getTenantUsage", {})).servers).toEqual([]);
    // This layer has no shaping engine (the runtime supplies it; apps/api tests shape for real): refused.
    expect(
      await failure(alice, "previewToolShape", { providerId, toolId, preview: { sample: { a: 1 } } }),
    ).toMatchObject({ _tag: "InvalidArgument", detail: "response filters are not available" });

    expect((await ok(alice, "listServerTools", { serverId })).map((t) => t.id)).toEqual([toolId]);
    await ok(alice, "removeServerTool", { serverId, toolId });
    expect(await ok(alice, "listServerTools", { serverId })).toEqual([]);
    expect((await ok(alice, "addServerTool", { serverId, tool: { providerID: providerId, toolID: toolId } })).id).toBe(
      toolId,
    );

    expect((await ok(alice, "addServerResource", { serverId, resource: { resourceID: resourceId } })).id).toBe(
      resourceId,
    );
    expect((await ok(alice, "listServerResources", { serverId })).map((r) => r.id)).toEqual([resourceId]);
    await ok(alice, "removeServerResource", { serverId, resourceId });
    expect((await ok(alice, "addServerPrompt", { serverId, prompt: { promptID: promptId } })).id).toBe(promptId);
    expect((await ok(alice, "listServerPrompts", { serverId })).map((p) => p.id)).toEqual([promptId]);
    await ok(alice, "removeServerPrompt", { serverId, promptId });

    const token = await ok(alice, "createServerToken", { serverId, token: { name: "ci" } });
    expect(token.value).toMatch(/^mcps_/);
    const tokenId = token.id;
    expect((await ok(alice, "listServerTokens", { serverId })).map((t) => [t.id, t.value])).toEqual([
      [tokenId, undefined],
    ]);
    expect((await ok(alice, "getServerToken", { serverId, tokenId })).name).toBe("ci");
    await ok(alice, "revokeServerToken", { serverId, tokenId });
    // Upstream OAuth connections are made by consent over MCP; none exists here.
    expect(await ok(alice, "listProviderConnections", { providerId })).toEqual({ connections: [] });
    expect(await failure(alice, "deleteProviderConnection", { providerId, connectionId: "Nconnection" })).toMatchObject(
      { _tag: "NotFound", kind: "connection" },
    );

    expect(await failure(alice, "deleteProvider", { providerId })).toMatchObject({
      _tag: "FailedPrecondition",
      references: [serverId],
    });
    await ok(alice, "deleteServer", {
      serverId,
      expectedVersion: (await ok(alice, "getServer", { serverId })).version,
    });
    await ok(alice, "deleteProviderTool", { providerId, toolId });
    await ok(alice, "deleteProviderPrompt", { providerId, promptId });
    await ok(alice, "deleteProviderResource", { providerId, resourceId });
    await ok(alice, "deleteProvider", { providerId });
    await ok(alice, "deleteVariable", { variableId });
    expect(await failure(alice, "getProvider", { providerId })).toMatchObject({ _tag: "NotFound", id: providerId });
    expect((await ok(alice, "listServers", {})).length).toBe(0);
    // Called without an AuditContext (a library caller), the writes above recorded no audit event.
    expect(await ok(alice, "listAuditEvents", {})).toEqual({ auditEvents: [], matchCount: 0, nextToken: "" });
    expect(await failure(alice, "listAuditEvents", { limit: 0, targetID: "x" })).toMatchObject({
      _tag: "InvalidArgument",
      errors: [{ path: "limit" }, { path: "targetID" }],
    });
    await runtime.dispose();
  });

  it("git connections: a connected server notes a push on each change of it or of what it uses", async () => {
    const runtime = services();
    const { ok, failure } = caller(runtime, called);
    const storage = await runtime.runPromise(Storage);
    const outbox = (serverId: string) => runtime.runPromise(storage.read((tx) => tx.findGitSync(serverId)));

    const connection = await ok(alice, "createGitConnection", {
      gitConnection: { name: "ours", kind: "GITLAB", token: "glpat-secret-token" },
    });
    expect(connection).toMatchObject({ kind: "GITLAB", baseURL: "https://gitlab.com", username: "" });
    expect(connection).not.toHaveProperty("token");
    expect(connection).not.toHaveProperty("tokenCipher");
    const gitConnectionId = connection.id;
    expect((await ok(alice, "getGitConnection", { gitConnectionId })).name).toBe("ours");
    expect((await ok(alice, "listGitConnections", {})).map((c) => c.id)).toEqual([gitConnectionId]);
    expect(
      await failure(alice, "createGitConnection", {
        gitConnection: { name: "ours", kind: "GITHUB", token: "t-abcdef" },
      }),
    ).toMatchObject({ _tag: "AlreadyExists" });
    expect(
      await failure(alice, "createGitConnection", { gitConnection: { name: "x", kind: "GENERIC", token: "t-abcdef" } }),
    ).toMatchObject({ _tag: "InvalidArgument", errors: [{ path: "gitConnection.baseURL" }] });
    expect(await failure(testActor("bob"), "getGitConnection", { gitConnectionId })).toMatchObject({
      _tag: "NotFound",
    });

    const provider = await ok(alice, "createProvider", {
      provider: { name: "API", baseURL: "https://api.example.com" },
    });
    const tool = await ok(alice, "createProviderTool", {
      providerId: provider.id,
      tool: { name: "getThing", method: "GET", path: "/thing" },
    });
    const server = await ok(alice, "createServer", {
      server: {
        name: "synced",
        providers: [{ id: provider.id }],
        gitConnectionID: gitConnectionId,
        gitRepoFullName: "team/mcp",
      },
    });
    expect(server).toMatchObject({ gitProvider: "GITLAB", gitRepoFullName: "team/mcp" });
    const serverId = server.id;
    expect(await outbox(serverId)).toMatchObject({ state: "PENDING", changeSeq: 1 });
    expect(await ok(alice, "getServerGitSync", { serverId })).toEqual({
      state: "PENDING",
      commit: "",
      pushedAt: "",
      error: "",
    });
    // A change of a tool the server uses is a change to push.
    await ok(alice, "updateProviderTool", { providerId: provider.id, toolId: tool.id, tool: { title: "Get" } });
    expect(await outbox(serverId)).toMatchObject({ changeSeq: 2 });
    // A write that changes nothing notes nothing.
    await ok(alice, "updateServer", { serverId, server: { gitRepoFullName: "team/mcp" } });
    expect(await outbox(serverId)).toMatchObject({ changeSeq: 2 });

    await ok(alice, "deleteGitConnection", { gitConnectionId });
    expect(await ok(alice, "getServerGitSync", { serverId })).toMatchObject({ state: "OFF" });
    expect((await ok(alice, "getServerGitSync", { serverId })).error).toContain(gitConnectionId);
    expect(await ok(alice, "getServer", { serverId })).toMatchObject({ gitProvider: "", gitRepoFullName: "team/mcp" });
    await runtime.dispose();
  });

  it("called every operation of the scope policy", () => {
    expect([...called].sort()).toEqual(OPERATIONS.filter(inTable).sort());
  });
});
