import { once } from "node:events";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, ref, textOf } from "./support/fixture.js";
import { actorOf, connect, manage } from "./support/harness.js";
import { describeEachEra, useMcpSuite } from "./support/mcp-suite.js";
import { startUpstream } from "./support/upstream.js";

// Issue 16, protocol gaps: resources/templates/list, cancellation reaching the upstream call, and no `${…}`
// template ever sent upstream unresolved (IP-address hosts get a usable secretPrefix).

// A long timeout: an aborted upstream call below can only have been cancelled, never timed out.
const suite = useMcpSuite(startUpstream, { upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 60_000 });
let fixture: Awaited<ReturnType<typeof buildFixture>>;

beforeAll(async () => {
  fixture = await buildFixture(suite.services, suite.upstream);
});

/** A raw 2025-era JSON-RPC POST (no SDK client: the test controls each HTTP request). */
const post = (serverId: string, token: string, message: object) =>
  fetch(`${suite.mcp.url}/mcp/${serverId}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });

describeEachEra(
  () => ({ url: suite.mcp.url, serverId: fixture.server.id, token: fixture.token.value }),
  (client) => {
    it("answers resources/templates/list (the resources capability is declared): no templates", async () => {
      expect((await client().listResourceTemplates()).resourceTemplates).toEqual([]);
    });

    it("a client cancelling a slow tools/call aborts the upstream request", async () => {
      const controller = new AbortController();
      const hang = once(suite.upstream.events, "hang");
      const call = client().callTool({ name: "slow" }, { signal: controller.signal });
      await hang;
      const aborted = once(suite.upstream.events, "hang-aborted");
      controller.abort("the user changed their mind");
      await expect(call).rejects.toThrow();
      await aborted;
    });
  },
);

describe("notifications/cancelled (2025-era, a request of its own)", () => {
  it("aborts the upstream call it names, and only the same credential's call", async () => {
    const other = await fixture.m.token(fixture.server.id, { name: "someone else" });
    const hang = once(suite.upstream.events, "hang");
    const pending = post(fixture.server.id, fixture.token.value, {
      id: 7,
      method: "tools/call",
      params: { name: "slow", arguments: {} },
    });
    await hang;
    let abortedEarly = false;
    suite.upstream.events.once("hang-aborted", () => {
      abortedEarly = true;
    });
    // Another token naming the same id cancels nothing.
    const foreign = await post(fixture.server.id, other.value, {
      method: "notifications/cancelled",
      params: { requestId: 7, reason: "not mine" },
    });
    expect(foreign.status).toBe(202);
    expect(abortedEarly).toBe(false);
    const aborted = once(suite.upstream.events, "hang-aborted");
    const cancel = await post(fixture.server.id, fixture.token.value, {
      method: "notifications/cancelled",
      params: { requestId: 7, reason: "user pressed stop" },
    });
    expect(cancel.status).toBe(202);
    await aborted;
    const answer = await (await pending).text();
    expect(answer).toContain("cancelled");
  });
});

describe("${…} is never sent upstream unresolved", () => {
  let client: Client;
  let serverId: string;
  const seenBefore = () => suite.upstream.seen.length;

  beforeAll(async () => {
    const m = manage(suite.services, actorOf("ipco"));
    // The upstream reached by IP address: its secretPrefix must still start a valid variable name.
    const provider = await m.provider({ name: "By IP", baseURL: `http://127.0.0.1:${suite.upstream.port}/api/` });
    expect(provider.secretPrefix).toBe("_127_0_0_1");
    await m.variable("_127_0_0_1_KEY", "ip-secret");
    const templated = await m.provider({
      name: "Templated base",
      baseURL: `http://127.0.0.1:${suite.upstream.port}/\${_127_0_0_1_KEY}/`,
    });
    const t = (providerId: string, body: Record<string, unknown>) => m.tool(providerId, { method: "GET", ...body });
    // The server serves every tool of both providers: the tests call them by name.
    await t(provider.id, {
      name: "resolved",
      path: "/echo/ip",
      headers: [{ key: "X-Key", value: ref("_127_0_0_1_KEY") }],
    });
    await t(provider.id, {
      name: "invalidName",
      path: "/echo/ip",
      headers: [{ key: "X-Key", value: ref("127_0_0_1_KEY") }],
    });
    await t(provider.id, {
      name: "unclosed",
      path: "/echo/ip",
      headers: [{ key: "X-Key", value: "token ${_127_0_0_1_KEY" }],
    });
    await t(provider.id, { name: "empty", path: "/echo/ip", headers: [{ key: "X-Key", value: "${}" }] });
    await t(provider.id, {
      name: "inPath",
      path: "/echo/${KEY}",
      pathArgsJSONSchema: { type: "object", properties: { KEY: { type: "string" } }, required: ["KEY"] },
    });
    await t(templated.id, { name: "inBaseUrl", path: "/echo/x" });
    const resource = await m.resource(provider.id, {
      name: "templated",
      uri: `http://127.0.0.1:${suite.upstream.port}/api/text?key=\${_127_0_0_1_KEY}`,
      mimeType: "text/plain",
    });
    const server = await m.server({
      name: "IP",
      providers: [{ id: provider.id }, { id: templated.id }],
      resources: [{ id: resource.id }],
    });
    serverId = server.id;
    const token = await m.token(server.id);
    client = await connect(suite.mcp.url, server.id, "2026-07-28", token.value);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("resolves a reference under an IP-address host's secretPrefix", async () => {
    const result = await client.callTool({ name: "resolved" });
    expect(result.isError).toBeFalsy();
    expect(suite.upstream.last().headers["x-key"]).toBe("ip-secret");
  });

  it.each([
    ["invalidName", "${127_0_0_1_KEY}"],
    ["unclosed", "${_127_0_0_1_KEY"],
    ["empty", "${}"],
  ])(
    "refuses the header reference of %s with a tool error naming it, without calling the upstream",
    async (name, shown) => {
      const before = seenBefore();
      const result = await client.callTool({ name });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(shown);
      expect(textOf(result)).toContain("refused");
      expect(suite.upstream.seen.length).toBe(before);
    },
  );

  it("refuses a reference in the tool path or the base URL (only header values resolve)", async () => {
    const before = seenBefore();
    const inPath = await client.callTool({ name: "inPath", arguments: { pathArgs: { KEY: "x" } } });
    expect(inPath.isError).toBe(true);
    expect(textOf(inPath)).toContain("the tool's path holds a ${…} reference");
    const inBase = await client.callTool({ name: "inBaseUrl" });
    expect(inBase.isError).toBe(true);
    expect(textOf(inBase)).toContain("the provider's base URL holds a ${…} reference");
    expect(suite.upstream.seen.length).toBe(before);
  });

  it("refuses to read a resource whose URI holds a reference", async () => {
    const before = seenBefore();
    const { resources } = await client.listResources();
    await expect(client.readResource({ uri: resources[0]?.uri ?? "" })).rejects.toThrow(/\$\{…\} reference/);
    expect(suite.upstream.seen.length).toBe(before);
    expect(serverId).toBeDefined();
  });
});
