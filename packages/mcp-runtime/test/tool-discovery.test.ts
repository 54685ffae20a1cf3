import { removeServerTool } from "@mcpsm/domain/use-cases";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Exit } from "effect";
import { type CompiledServer, TOOLS_PAGE_SIZE } from "../src/index.js";
import { buildFixture, textOf } from "./support/fixture.js";
import { actorOf, connect, ERAS, manage, type RunningMcp, startMcp } from "./support/harness.js";
import { describeEachEra, useMcpSuite } from "./support/mcp-suite.js";
import { startUpstream } from "./support/upstream.js";

// Dynamic tool discovery (docs/api-rules.md §14) end to end with the SDK client in both eras, the index following
// management changes across two instances sharing one store, regex safety, and tools/list paging.

const settings = { upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 2000 };
const suite = useMcpSuite(startUpstream, settings);
let other: RunningMcp;
let fixture: Awaited<ReturnType<typeof buildFixture>>;
let discovering: { id: string };
let discoveringToken: { id: string; value: string };

/** The compiled server an instance serves now (what its tools/list answers). */
const compiledOf = async (running: RunningMcp, serverId: string): Promise<CompiledServer | undefined> => {
  const lookup = await running.runtime.cache.current(serverId);
  return Exit.isSuccess(lookup) ? lookup.value : undefined;
};

interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

beforeAll(async () => {
  other = await startMcp(suite.services, settings);
  fixture = await buildFixture(suite.services, suite.upstream);
  discovering = await fixture.m.server({
    name: "Discovering",
    dynamicToolDiscoveryEnabled: true,
    providers: [{ id: fixture.provider.id }],
    prompts: [{ id: fixture.prompt.id }],
  });
  discoveringToken = await fixture.m.token(discovering.id);
});

afterAll(async () => {
  await other?.close();
});

const discoveringServed = () => ({ url: suite.mcp.url, serverId: discovering.id, token: discoveringToken.value });

describeEachEra(discoveringServed, (client, era) => {
  let plain: Client;
  beforeAll(async () => {
    plain = await connect(suite.mcp.url, fixture.server.id, era, fixture.token.value);
  });
  afterAll(async () => {
    await plain?.close();
  });

  const call = (name: string, args?: Record<string, unknown>, on = client()) =>
    on.callTool({ name, ...(args ? { arguments: args } : {}) }) as Promise<ToolResult>;
  const search = async (query: string, limit?: number) => {
    const result = await call("searchTools", { query, ...(limit !== undefined ? { limit } : {}) });
    expect(result.isError).toBeFalsy();
    return (result.structuredContent as { tools: Array<{ name: string; score: number; title?: string }> }).tools;
  };

  it("lists exactly searchTools, getToolDefinition and useTool, with strict input schemas", async () => {
    const { tools, nextCursor } = await client().listTools();
    expect(tools.map((t) => t.name)).toEqual(["searchTools", "getToolDefinition", "useTool"]);
    expect(nextCursor).toBeUndefined();
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.description?.length).toBeGreaterThan(80);
    }
    expect(tools[0]?.description).toContain(`This server has ${Object.keys(fixture.tools).length} tools`);
    expect(tools[0]?.inputSchema.required).toEqual(["query"]);
    expect(tools[2]?.inputSchema.required).toEqual(["name", "arguments"]);
    expect(tools[0]?.annotations?.readOnlyHint).toBe(true);
    // Prompts are unaffected.
    expect((await client().listPrompts()).prompts.map((p) => p.name)).toEqual(["greet"]);
  });

  it("searchTools ranks by relevance and answers structured content and the same as text", async () => {
    const result = await call("searchTools", { query: "remove an item" });
    const tools = (result.structuredContent as { tools: Array<{ name: string; score: number }> }).tools;
    expect(tools[0]?.name).toBe("deleteItem");
    expect(tools[0]?.score).toBeGreaterThan(tools[1]?.score ?? 0);
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    const top = (await search("get an item"))[0];
    // Enough to choose without a second call: name, title, a one-line description, the required arguments.
    expect(top).toEqual({
      name: "getItem",
      title: "Get an item",
      description: "Reads one item",
      required: ["pathArgs.itemId"],
      score: top?.score,
    });
    expect((await search("item", 2)).length).toBe(2);
    expect(await search("zebra quantum")).toEqual([]);
  });

  it("matches identifiers however they are written", async () => {
    for (const query of ["getItem", "get_item", "get-item", "get item", "GET ITEMS"])
      expect((await search(query))[0]?.name, query).toBe("getItem");
  });

  it("reads /pattern/ as a case-insensitive regular expression over names and titles", async () => {
    expect((await search("/^(GET|delete)item$/")).map((t) => t.name)).toEqual(["getItem", "deleteItem"]);
    expect((await search("/an item/")).map((t) => t.name)).toEqual(["getItem"]);
    const invalid = await call("searchTools", { query: "/(a)\\1/" });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/invalid regular expression/);
  });

  it("getToolDefinition answers the tool's tools/list entry exactly", async () => {
    const listed = (await plain.listTools()).tools;
    for (const name of ["getItem", "createItem", "deleteItem"]) {
      const result = await call("getToolDefinition", { name });
      expect(result.structuredContent).toEqual(listed.find((t) => t.name === name));
      // Byte for byte what tools/list serializes for that tool.
      const compiled = await compiledOf(suite.mcp, fixture.server.id);
      expect(textOf(result)).toBe(JSON.stringify(compiled?.toolList.find((t) => t.name === name)));
    }
  });

  it("useTool answers exactly what tools/call answers", async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ["getItem", { pathArgs: { itemId: "a b" }, queryArgs: { tag: ["x", "y"], limit: 2 } }],
      ["createItem", { bodyArgs: { name: "pen", size: 2 } }],
      ["createItem", { bodyArgs: { size: "big" }, extra: 1 }],
      ["failing", { pathArgs: { code: 404 } }],
      ["missingVar", {}],
      ["stealSecret", {}],
    ];
    for (const [name, args] of cases) {
      const direct = await call(name, args, plain);
      const viaUseTool = await call("useTool", { name, arguments: args });
      // Equal except the per-response envelope naming the answering server.
      expect({ ...viaUseTool, _meta: undefined }, name).toEqual({ ...direct, _meta: undefined });
    }
    expect(suite.upstream.last().headers["x-api-key"]).toBeUndefined();
    const seen = await call("useTool", { name: "getItem", arguments: { pathArgs: { itemId: "7" } } });
    expect(seen.structuredContent).toMatchObject({ method: "GET", path: "/echo/items/7" });
    expect(suite.upstream.last().headers["x-api-key"]).toBe("Bearer s3cr3t-value");
  });

  it("answers an unknown name with an error result naming it", async () => {
    for (const [tool, args] of [
      ["getToolDefinition", { name: "nope" }],
      ["useTool", { name: "nope", arguments: {} }],
    ] as const) {
      const result = await call(tool, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("unknown tool 'nope'");
    }
  });

  it("refuses arguments outside the strict input schemas", async () => {
    const cases: Array<[string, Record<string, unknown> | undefined, string]> = [
      ["searchTools", undefined, "must have required property 'query'"],
      ["searchTools", { query: "x", limit: 0 }, "limit: must be >= 1"],
      ["searchTools", { query: "x", limit: 51 }, "limit: must be <= 50"],
      ["searchTools", { query: "x", sort: "name" }, "must NOT have additional properties ('sort')"],
      ["searchTools", { query: "" }, "query: must NOT have fewer than 1 characters"],
      ["getToolDefinition", { name: 3 }, "name: must be string"],
      ["useTool", { name: "getItem" }, "must have required property 'arguments'"],
      ["useTool", { name: "getItem", arguments: [] }, "arguments: must be object"],
    ];
    for (const [tool, args, message] of cases) {
      const result = await call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result)).toContain(message);
    }
  });
});

describe("regex safety", () => {
  it("a pathological pattern answers in bounded time, and refused patterns answer an error", async () => {
    const m = manage(suite.services, actorOf("regex"));
    const provider = await m.provider({ name: "Regex", baseURL: `http://localhost:${suite.upstream.port}/api/` });
    // A title on which a backtracking engine would need ~2^60 steps for /(a+)+$/.
    const tool = await m.tool(provider.id, { name: "aaaa", title: `${"a".repeat(60)}!`, method: "GET", path: "/x" });
    const server = await m.server({
      name: "Regex",
      dynamicToolDiscoveryEnabled: true,
      providers: [{ id: provider.id }],
    });
    const token = await m.token(server.id);
    const client = await connect(suite.mcp.url, server.id, "2026-07-28", token.value);
    const run = (query: string) =>
      client.callTool({ name: "searchTools", arguments: { query } }) as Promise<ToolResult>;
    const started = performance.now();
    const pathological = await run("/(a+)+$/");
    const nested = await run("/((a*)*)*b/");
    // Generous: a backtracking engine would not finish in years; RE2 takes well under a millisecond here.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(pathological.structuredContent).toEqual({
      // (A tool without a description is described by its title: issue 16's fallback.)
      tools: [{ name: "aaaa", title: `${"a".repeat(60)}!`, description: `${"a".repeat(60)}!`, score: 1 }],
    });
    expect(nested.structuredContent).toEqual({ tools: [] });
    for (const [query, message] of [
      ["/(a)\\1/", "invalid regular expression"],
      ["/(?=a)/", "invalid regular expression"],
      ["/((a{100}){100}){100}/", "invalid regular expression"],
      [`/${"a".repeat(201)}/`, "longer than 200 characters"],
    ]) {
      const result = await run(query as string);
      expect(result.isError, query).toBe(true);
      expect(textOf(result)).toContain(message);
    }
    expect(tool.id).toBeDefined();
    await client.close();
  });
});

describe("freshness across instances", () => {
  it("the index follows a tool added, changed or removed on the next request of either instance", async () => {
    const f = await buildFixture(suite.services, suite.upstream, "fresh");
    const server = await f.m.server({
      name: "FreshDiscovery",
      dynamicToolDiscoveryEnabled: true,
      providers: [{ id: f.provider.id, tools: [{ id: f.tools.getItem.id }, { id: f.tools.deleteItem.id }] }],
    });
    const token = await f.m.token(server.id);
    const a = await connect(suite.mcp.url, server.id, "2026-07-28", token.value);
    const b = await connect(other.url, server.id, "2025-11-25", token.value);
    const names = async (client: Client, query: string) =>
      (
        (await client.callTool({ name: "searchTools", arguments: { query } })) as {
          structuredContent: { tools: Array<{ name: string }> };
        }
      ).structuredContent.tools.map((t) => t.name);
    expect(await names(a, "create")).toEqual([]);
    expect(await names(b, "create")).toEqual([]);
    const compiles = other.runtime.cache.compiles;
    expect(await names(b, "item")).toEqual(["getItem", "deleteItem"]);
    expect(other.runtime.cache.compiles).toBe(compiles);

    // Added (through the store both instances share).
    await f.m.addTool(server.id, f.provider.id, f.tools.createItem.id);
    expect((await names(a, "create an item"))[0]).toBe("createItem");
    expect((await names(b, "create an item"))[0]).toBe("createItem");

    // Changed.
    await f.m.updateTool(f.provider.id, f.tools.getItem.id, { description: "Fetches a gadget by its serial" });
    expect((await names(a, "gadget serial"))[0]).toBe("getItem");
    expect((await names(b, "gadget serial"))[0]).toBe("getItem");
    const definition = (await b.callTool({ name: "getToolDefinition", arguments: { name: "getItem" } })) as ToolResult;
    expect(definition.structuredContent?.description).toBe("Fetches a gadget by its serial");

    // Removed.
    await suite.services.runPromise(
      removeServerTool(actorOf("fresh"), { serverId: server.id, toolId: f.tools.deleteItem.id }) as never,
    );
    expect(await names(a, "delete")).not.toContain("deleteItem");
    expect(await names(b, "delete")).not.toContain("deleteItem");
    const gone = (await a.callTool({
      name: "useTool",
      arguments: { name: "deleteItem", arguments: {} },
    })) as ToolResult;
    expect(gone.isError).toBe(true);
    expect(textOf(gone)).toContain("unknown tool 'deleteItem'");

    // Turning discovery off gives the plain list back on the next request.
    await f.m.updateServer(server.id, { dynamicToolDiscoveryEnabled: false });
    expect((await b.listTools()).tools.map((t) => t.name)).toEqual(["getItem", "createItem"]);
    await a.close();
    await b.close();
  });
});

describe("tools/list paging", () => {
  it("pages a large server with the protocol's cursor, in order, and refuses a forged cursor", async () => {
    const m = manage(suite.services, actorOf("paging"));
    const provider = await m.provider({ name: "Many", baseURL: `http://localhost:${suite.upstream.port}/api/` });
    const count = TOOLS_PAGE_SIZE * 2 + 7;
    for (let i = 0; i < count; i++) await m.tool(provider.id, { name: `tool${i}`, method: "GET", path: `/echo/${i}` });
    const server = await m.server({ name: "Many", providers: [{ id: provider.id }] });
    const token = await m.token(server.id);
    for (const era of ERAS) {
      const client = await connect(suite.mcp.url, server.id, era, token.value);
      // The SDK client's listTools() follows every cursor itself; the pages are read one by one here.
      const pages: Array<number> = [];
      const seen: Array<string> = [];
      let page = await client.request({ method: "tools/list", params: {} });
      for (;;) {
        pages.push(page.tools.length);
        seen.push(...page.tools.map((t) => t.name));
        if (page.nextCursor === undefined) break;
        page = await client.listTools({ cursor: page.nextCursor });
      }
      expect(pages).toEqual([TOOLS_PAGE_SIZE, TOOLS_PAGE_SIZE, 7]);
      // Every tool once, in the server's own order.
      expect(seen).toEqual((await compiledOf(suite.mcp, server.id))?.toolList.map((t) => t.name));
      expect(new Set(seen)).toEqual(new Set(Array.from({ length: count }, (_, i) => `tool${i}`)));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(seen);
      await expect(client.listTools({ cursor: "bm90LWEtY3Vyc29y" })).rejects.toThrow(/invalid cursor/);
      await client.close();
    }
    // Discovery hides the pages: three tools, and search reaches every one of them.
    await m.updateServer(server.id, { dynamicToolDiscoveryEnabled: true });
    const client = await connect(suite.mcp.url, server.id, "2026-07-28", token.value);
    expect((await client.listTools()).tools).toHaveLength(3);
    const last = (await client.callTool({
      name: "searchTools",
      arguments: { query: `/^tool${count - 1}$/` },
    })) as ToolResult;
    expect(last.structuredContent).toEqual({
      tools: [{ name: `tool${count - 1}`, description: `GET /echo/${count - 1} on Many`, score: 1 }],
    });
    await client.close();
  });
});
