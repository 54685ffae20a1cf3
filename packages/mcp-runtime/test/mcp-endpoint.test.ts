import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ref, SECRET_VALUE, textOf } from "./support/fixture.js";
import { connect, ERAS } from "./support/harness.js";
import { useFixtureSuite } from "./support/mcp-suite.js";

// End to end with the SDK's own client, in both protocol eras, against a local upstream REST server.

const suite = useFixtureSuite({
  upstreamAllowedNetworks: ["127.0.0.0/8"],
  upstreamTimeoutMs: 400,
  upstreamMaxResponseBytes: 4096,
});

describe.each(ERAS)("protocol %s", (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(suite.mcp.url, suite.fixture.server.id, era, suite.fixture.token.value);
  });
  afterAll(async () => {
    await client?.close();
  });

  const call = (name: string, args?: Record<string, unknown>) =>
    client.callTool({ name, ...(args ? { arguments: args } : {}) }) as Promise<{
      isError?: boolean;
      content: Array<{ type: string; text?: string }>;
      structuredContent?: Record<string, unknown>;
    }>;

  it("negotiates the era and announces name, version, instructions and capabilities", () => {
    expect(client.getNegotiatedProtocolVersion?.() ?? era).toBe(era);
    expect(client.getServerVersion()).toEqual({
      name: "Everything",
      title: "Everything",
      version: "1",
      description: "Use these tools to manage items.",
    });
    expect(client.getInstructions()).toBe("Use these tools to manage items.");
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.tools).toBeDefined();
    expect(capabilities?.prompts).toBeDefined();
    expect(capabilities?.resources).toBeDefined();
  });

  it("lists the chosen tools in a stable order with composed input schemas and method hints", async () => {
    const { tools } = await client.listTools();
    // The server's own order (a snapshot of the provider's tools when the server was created), every time.
    expect(new Set(tools.map((t) => t.name))).toEqual(new Set(Object.keys(suite.fixture.tools)));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    const getItem = tools.find((t) => t.name === "getItem");
    expect(getItem).toMatchObject({
      name: "getItem",
      title: "Get an item",
      description: "Reads one item",
      inputSchema: {
        type: "object",
        properties: {
          pathArgs: { type: "object", properties: { itemId: { type: "string" } }, required: ["itemId"] },
          queryArgs: { type: "object" },
        },
        required: ["pathArgs"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    });
    expect(Object.keys(getItem?.inputSchema.properties ?? {})).toEqual(["pathArgs", "queryArgs"]);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("createItem")?.inputSchema.required).toEqual(["bodyArgs"]);
    expect(byName.get("createItem")?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(byName.get("deleteItem")?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(byName.get("putItem")?.annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(byName.get("putItem")?.inputSchema.required).toEqual(["pathArgs"]);
    expect(byName.get("slow")?.inputSchema).toEqual({ type: "object", properties: {}, additionalProperties: false });
  });

  it("sends path, query and headers upstream exactly, with variables resolved, and returns JSON as structured content", async () => {
    const result = await call("getItem", {
      pathArgs: { itemId: "a/b c?" },
      queryArgs: { tag: ["x", "y z"], limit: 5 },
    });
    expect(result.isError).toBeFalsy();
    const seen = suite.upstream.last();
    expect(seen.method).toBe("GET");
    expect(seen.url).toBe("/api/echo/items/a%2Fb%20c%3F?tag=x&tag=y+z&limit=5");
    expect(seen.headers["x-api-key"]).toBe(`Bearer ${SECRET_VALUE}`);
    expect(seen.headers["x-static"]).toBe("yes");
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers["content-type"]).toBeUndefined();
    expect(seen.body).toBe("");
    expect(result.structuredContent).toEqual({
      method: "GET",
      path: "/echo/items/a%2Fb%20c%3F",
      query: "?tag=x&tag=y+z&limit=5",
      body: null,
    });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it("sends bodyArgs as a JSON body", async () => {
    const result = await call("createItem", { bodyArgs: { name: "widget", size: 2.5 } });
    expect(result.isError).toBeFalsy();
    const seen = suite.upstream.last();
    expect(seen.method).toBe("POST");
    expect(seen.url).toBe("/api/echo/items");
    expect(seen.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(seen.body)).toEqual({ name: "widget", size: 2.5 });
    const put = await call("putItem", { pathArgs: { itemId: "7" }, bodyArgs: { name: "w" } });
    expect(put.isError).toBeFalsy();
    expect(suite.upstream.last()).toMatchObject({ method: "PUT", url: "/api/echo/items/7", body: '{"name":"w"}' });
  });

  it("answers invalid arguments with a tool error naming each problem, without calling upstream", async () => {
    const before = suite.upstream.seen.length;
    const result = await call("getItem", { pathArgs: { itemId: 3 }, queryArgs: { limit: 0 }, extra: true });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain("pathArgs.itemId: must be string");
    expect(text).toContain("queryArgs.limit: must be >= 1");
    expect(text).toContain("extra: unknown argument");
    const missing = await call("createItem", {});
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain("bodyArgs: is required");
    for (const itemId of ["..", "."]) {
      const traversal = await call("deleteItem", { pathArgs: { itemId } });
      expect(traversal.isError).toBe(true);
      expect(textOf(traversal)).toContain("pathArgs.itemId: must not be empty, '.' or '..'");
    }
    expect(suite.upstream.seen.length).toBe(before);
  });

  it("refuses header variables outside the provider's secretPrefix, and reports missing ones", async () => {
    const before = suite.upstream.seen.length;
    const stolen = await call("stealSecret");
    expect(stolen.isError).toBe(true);
    expect(textOf(stolen)).toContain(`${ref("OTHER_SECRET")} refused`);
    expect(textOf(stolen)).toContain("'LOCALHOST_'");
    expect(textOf(stolen)).not.toContain("must-never-leak");
    const missing = await call("missingVar");
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain(`${ref("LOCALHOST_NOPE")} not defined`);
    expect(suite.upstream.seen.length).toBe(before);
  });

  it("turns upstream 4xx and 5xx into tool errors carrying the status and body", async () => {
    for (const code of [404, 422, 500, 503]) {
      const result = await call("failing", { pathArgs: { code } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(new RegExp(`^upstream answered HTTP ${code}`));
      expect(textOf(result)).toContain(`failed with ${code}`);
    }
  });

  it("gives up on an upstream that never answers after the configured timeout", async () => {
    const result = await call("slow");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("upstream call failed: upstream did not answer within 400 ms");
  });

  it("truncates oversized bodies with a notice", async () => {
    const result = await call("big", { pathArgs: { size: 100_000 } });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text.startsWith("x".repeat(4096))).toBe(true);
    expect(text).toContain("[truncated: the upstream response is larger than 4096 bytes]");
    const small = await call("big", { pathArgs: { size: 10 } });
    expect(textOf(small)).toBe("x".repeat(10));
  });

  it("follows a redirect within the upstream's origin only", async () => {
    const same = await call("redirSame");
    expect(same.isError).toBeFalsy();
    expect(same.structuredContent).toMatchObject({ path: "/echo/redirected" });
    const other = await call("redirOther");
    expect(other.isError).toBe(true);
    expect(textOf(other)).toContain("to another host");
  });

  it("returns binary bodies as content blocks and wraps non-object JSON", async () => {
    expect((await call("image")).content).toEqual([
      {
        type: "image",
        mimeType: "image/png",
        data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]).toString("base64"),
      },
    ]);
    const array = await call("array");
    expect(array.structuredContent).toEqual({ result: [1, 2, 3] });
  });

  it("answers an unknown tool with an error", async () => {
    const outcome = await call("nope").then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    if ("result" in outcome) expect(outcome.result.isError).toBe(true);
    else expect(String(outcome.error)).toContain("unknown tool 'nope'");
  });

  it("lists and renders prompts; a missing required argument or an unknown prompt is -32602", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      {
        name: "greet",
        description: "Greets someone",
        arguments: [
          { name: "who", required: true },
          { name: "mood", required: false },
        ],
      },
    ]);
    const got = await client.getPrompt({ name: "greet", arguments: { who: "Ada" } });
    expect(got.messages).toEqual([
      { role: "user", content: { type: "text", text: "Hello Ada, feeling ? {{unknown}}" } },
    ]);
    await expect(client.getPrompt({ name: "greet", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await expect(client.getPrompt({ name: "nope" })).rejects.toMatchObject({ code: -32602 });
  });

  it("lists and reads resources: text for textual media types, base64 blobs otherwise", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.name, r.mimeType])).toEqual([
      ["notes", "text/plain"],
      ["logo", "image/png"],
    ]);
    const notes = await client.readResource({ uri: resources[0]?.uri ?? "" });
    expect(notes.contents).toEqual([{ uri: resources[0]?.uri, mimeType: "text/plain", text: "plain text ✓" }]);
    const logo = await client.readResource({ uri: resources[1]?.uri ?? "" });
    expect(logo.contents[0]).toMatchObject({
      mimeType: "image/png",
      blob: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]).toString("base64"),
    });
    await expect(client.readResource({ uri: "http://localhost/unknown" })).rejects.toMatchObject({ code: -32602 });
  });
});
