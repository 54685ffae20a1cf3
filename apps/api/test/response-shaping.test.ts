import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Storage } from "@mcpsm/domain/storage";
import { defaultMcpSettings } from "@mcpsm/mcp-runtime";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Layer, ManagedRuntime } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintDevToken } from "../src/auth/dev-auth.js";
import { localConfig } from "../src/config/local-config.js";
import { type RunningService, startService } from "../src/service.js";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { testStorage } from "./support/test-storage.js";

// docs/api-rules.md §19 end to end: a tool's responseFilter and a server's maxResultTokens, over the
// management API and real SDK clients of both protocol eras (the 2026-07-28 one is answered by the fast lane).

let service: RunningService;
const store = ManagedRuntime.make(testStorage());
let upstream: Loopback;
let dataDir: string;
let adminToken: string;
let providerId: string;

const records = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `u${i}`,
    name: `User number ${i}`,
    email: `user${i}@example.com`,
    bio: "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt.",
  }));

const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${adminToken}`,
      ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
};

const connect = async (serverId: string, token: string, era: "2025-11-25" | "2026-07-28") => {
  const client = new Client(
    { name: "shaping-test", version: "1" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service.url}/mcp/${serverId}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

const USERS_SCHEMA = {
  type: "object",
  properties: {
    total: { type: "integer" },
    users: {
      type: "array",
      items: {
        type: "object",
        properties: { id: { type: "string" }, name: { type: "string" }, email: { type: "string" } },
      },
    },
  },
};

const createTool = (tool: Record<string, unknown>) => api("POST", `/providers/${providerId}/tools`, { tool });

/** A server of the given tools with a token. */
const serverOf = async (name: string, toolIds: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => {
  const server = await api("POST", "/servers", {
    server: { name, providers: [{ id: providerId, tools: toolIds.map((id) => ({ id })) }], ...extra },
  });
  expect(server.status).toBe(201);
  const id: string = server.body.server.id;
  const token: string = (await api("POST", `/servers/${id}/tokens`, { token: { name: "agent" } })).body.token.value;
  return { id, token, record: server.body.server };
};

beforeAll(async () => {
  upstream = await listenOnLoopback((req, res) => {
    const count = Number(new URL(req.url ?? "/", "http://x").searchParams.get("n") ?? "3");
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ total: count, users: records(count) }));
  });
  dataDir = await mkdtemp(join(tmpdir(), "mcpsm-shaping-test-"));
  const config = localConfig(dataDir, {
    logLevel: "silent",
    mcp: defaultMcpSettings({ upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 5000 }),
  });
  service = await startService(config, { storage: Layer.succeed(Storage, await store.runPromise(Storage)) });
  adminToken = await mintDevToken(dataDir, { subject: "acme" });
  const port = upstream.port;
  providerId = (await api("POST", "/providers", { provider: { name: "Users", baseURL: `http://127.0.0.1:${port}` } }))
    .body.provider.id;
});

afterAll(async () => {
  await service?.close();
  await upstream?.close();
  await store.dispose();
  await rm(dataDir, { recursive: true, force: true });
});

const QUERY = { type: "object", properties: { n: { type: "integer" }, limit: { type: "integer" } } };

describe("response shaping (docs/api-rules.md §19)", () => {
  it("refuses a filter that does not compile, at tool.responseFilter.expression", async () => {
    for (const responseFilter of [
      { language: "jmespath", expression: "users[*.{" },
      { language: "jq", expression: ".users | map({id" },
    ]) {
      const refused = await createTool({ name: "badFilter", method: "GET", path: "/users", responseFilter });
      expect(refused.status).toBe(400);
      expect(refused.body.errors.map((e: { path: string }) => e.path)).toContain("tool.responseFilter.expression");
    }
    const bad = await createTool({
      name: "badLanguage",
      method: "GET",
      path: "/users",
      responseFilter: { language: "xpath", expression: "//id" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe("tool.responseFilter.language");
  });

  it("applies the filter in both eras alike and declares the filtered outputSchema", async () => {
    const tool = await createTool({
      name: "listUsers",
      method: "GET",
      path: "/users",
      queryArgsJSONSchema: QUERY,
      respBodyJSONSchema: USERS_SCHEMA,
      // EXACT: the schema as written, so the derivation is precise (the lenient form allows null everywhere).
      outputSchemaMode: "EXACT",
      responseFilter: { language: "jmespath", expression: "users[*].{id: id, email: email}" },
    });
    expect(tool.status).toBe(201);
    expect(tool.body.tool.responseFilter).toEqual({
      language: "jmespath",
      expression: "users[*].{id: id, email: email}",
    });
    const jq = await createTool({
      name: "listUserIds",
      method: "GET",
      path: "/users",
      queryArgsJSONSchema: QUERY,
      responseFilter: { language: "jq", expression: "{ids: [.users[].id]}" },
    });
    expect(jq.status).toBe(201);
    const server = await serverOf("Shaped", [tool.body.tool.id, jq.body.tool.id]);
    expect(server.record.maxResultTokens).toBe(25000);
    const results = [];
    for (const era of ["2025-11-25", "2026-07-28"] as const) {
      const client = await connect(server.id, server.token, era);
      const listed = (await client.listTools()).tools.find((t) => t.name === "listUsers");
      expect(listed?.outputSchema).toMatchObject({
        type: "object",
        required: ["result"],
        properties: { result: { anyOf: [{ type: "array" }, { type: "null" }] } },
      });
      const result = await client.callTool({ name: "listUsers", arguments: { queryArgs: { n: 2 } } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({
        result: [
          { id: "u0", email: "user0@example.com" },
          { id: "u1", email: "user1@example.com" },
        ],
      });
      const ids = await client.callTool({ name: "listUserIds", arguments: { queryArgs: { n: 3 } } });
      expect(ids.structuredContent).toEqual({ ids: ["u0", "u1", "u2"] });
      // The era's own _meta aside, the same result.
      results.push(
        [result, ids].map(({ content, structuredContent, isError }) => ({ content, structuredContent, isError })),
      );
      await client.close();
    }
    // The fast lane (2026-07-28) answers what the SDK path answers.
    expect(results[1]).toEqual(results[0]);
  });

  it("stops a hostile filter as a tool error while other calls answer", async () => {
    const hostile = await createTool({
      name: "spin",
      method: "GET",
      path: "/users",
      responseFilter: { language: "jq", expression: "def f: f; f" },
    });
    expect(hostile.status).toBe(201);
    const plain = await createTool({ name: "plainUsers", method: "GET", path: "/users", queryArgsJSONSchema: QUERY });
    const server = await serverOf("Hostile", [hostile.body.tool.id, plain.body.tool.id]);
    for (const era of ["2025-11-25", "2026-07-28"] as const) {
      const client = await connect(server.id, server.token, era);
      const [spun, other] = await Promise.all([
        client.callTool({ name: "spin", arguments: {} }),
        client.callTool({ name: "plainUsers", arguments: { queryArgs: { n: 1 } } }),
      ]);
      expect(spun.isError).toBe(true);
      expect(JSON.stringify(spun.content)).toContain("response filter of tool 'spin' ran past its budget");
      expect(other.isError, JSON.stringify(other.content)).toBeFalsy();
      expect(other.structuredContent).toMatchObject({ total: 1 });
      await client.close();
    }
  });

  it("answers hostile filters in a preview with a 400 naming the budget, /healthz answering meanwhile", async () => {
    const tool = await createTool({ name: "hostilePreview", method: "GET", path: "/users" });
    const toolId: string = tool.body.tool.id;
    const sample = { total: 300, users: records(300) };
    const hostile = [
      { language: "jq", expression: "def f: f; f" },
      { language: "jq", expression: "[range(1e9)]" },
      { language: "jq", expression: 'reduce range(40) as $i ("x"; . + .)' },
      { language: "jq", expression: "[limit(1000000; repeat(.))]" },
      { language: "jq", expression: "reduce range(100000) as $i (0; [.])" },
      { language: "jmespath", expression: Array.from({ length: 40 }, () => "[@,@]").join(".") },
      // Cost-bounded, but 16 copies of the sample: past the output budget (the input's size).
      { language: "jmespath", expression: `[${Array(16).fill("@").join(",")}]` },
    ];
    let healthy = 0;
    let probing = true;
    const probes = (async () => {
      while (probing) if ((await fetch(`${service.url}/healthz`)).ok) healthy += 1;
    })();
    for (const responseFilter of hostile) {
      const answer = await api("POST", `/providers/${providerId}/tools/${toolId}/shape-preview`, {
        sample,
        responseFilter,
      });
      expect(answer.status, responseFilter.expression).toBe(400);
      expect(answer.body.errors[0].path).toBe("responseFilter.expression");
      expect(answer.body.errors[0].message).toMatch(/budget/);
    }
    probing = false;
    await probes;
    expect(healthy).toBeGreaterThan(hostile.length);
    const huge = await createTool({
      name: "hugeOutput",
      method: "GET",
      path: "/users",
      responseFilter: { language: "jq", expression: "[limit(1000000; repeat(.))]" },
    });
    const server = await serverOf("Huge", [huge.body.tool.id]);
    const client = await connect(server.id, server.token, "2026-07-28");
    const result = await client.callTool({ name: "hugeOutput", arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/response filter of tool 'hugeOutput' ran past its budget/);
    await client.close();
  }, 120_000);

  it("cuts an answer over maxResultTokens at whole items and says how to page", async () => {
    const tool = await createTool({
      name: "allUsers",
      method: "GET",
      path: "/users",
      queryArgsJSONSchema: QUERY,
      respBodyJSONSchema: USERS_SCHEMA,
    });
    const tooSmall = await api("POST", "/servers", { server: { name: "Tiny", maxResultTokens: 10 } });
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.body.errors[0].path).toBe("server.maxResultTokens");
    const server = await serverOf("Budget", [tool.body.tool.id], { maxResultTokens: 1000 });
    expect(server.record.maxResultTokens).toBe(1000);
    for (const era of ["2025-11-25", "2026-07-28"] as const) {
      const client = await connect(server.id, server.token, era);
      const result = await client.callTool({ name: "allUsers", arguments: { queryArgs: { n: 500 } } });
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as { total: number; users: Array<unknown> };
      expect(structured.total).toBe(500);
      expect(structured.users.length).toBeGreaterThan(0);
      expect(structured.users.length).toBeLessThan(500);
      const blocks = result.content as Array<{ type: string; text: string }>;
      expect(blocks).toHaveLength(2);
      expect(JSON.parse(blocks[0]?.text ?? "")).toEqual(structured);
      expect(blocks[1]?.text).toContain(`kept ${structured.users.length} of 500 items of \`users\``);
      expect(blocks[1]?.text).toContain("`limit`");
      await client.close();
    }
  });

  it("previews a filter on a sample with token counts, storing nothing", async () => {
    const tool = await createTool({
      name: "previewed",
      method: "GET",
      path: "/users",
      respBodyJSONSchema: USERS_SCHEMA,
      outputSchemaMode: "EXACT",
    });
    const toolId: string = tool.body.tool.id;
    const sample = { total: 50, users: records(50) };
    const preview = await api("POST", `/providers/${providerId}/tools/${toolId}/shape-preview`, {
      sample,
      responseFilter: { language: "jmespath", expression: "users[*].id" },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.result).toEqual(sample.users.map((u) => u.id));
    expect(preview.body.tokens.before).toBeGreaterThan(preview.body.tokens.after * 5);
    expect(preview.body.outputSchema).toMatchObject({
      type: "object",
      properties: { result: { anyOf: [{ type: "array", items: { type: "string" } }, { type: "null" }] } },
    });
    expect(preview.body.cut).toBe("");
    const cut = await api("POST", `/providers/${providerId}/tools/${toolId}/shape-preview`, {
      sample: { total: 400, users: records(400) },
      maxResultTokens: 1000,
    });
    expect(cut.status).toBe(200);
    expect(cut.body.tokens.after).toBeLessThanOrEqual(1000);
    expect(cut.body.cut).toContain("of 400 items");
    const bad = await api("POST", `/providers/${providerId}/tools/${toolId}/shape-preview`, {
      sample,
      responseFilter: { language: "jmespath", expression: "users[" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe("responseFilter.expression");
    expect((await api("POST", `/providers/${providerId}/tools/${toolId}/shape-preview`, {})).status).toBe(400);
    expect((await api("GET", `/providers/${providerId}/tools/${toolId}`)).body.tool.responseFilter).toBeNull();
  });

  it("carries responseFilter and maxResultTokens through export and import", async () => {
    const tool = await createTool({
      name: "exported",
      method: "GET",
      path: "/exported",
      responseFilter: { language: "jq", expression: "[.users[].name]" },
    });
    const server = await serverOf("Exported", [tool.body.tool.id], { maxResultTokens: 4000 });
    const document = (await api("GET", `/servers/${server.id}/export`)).body;
    expect(document.server.maxResultTokens).toBe(4000);
    expect(document.providers[0].tools[0].responseFilter).toEqual({ language: "jq", expression: "[.users[].name]" });
    const imported = await api("POST", "/servers/import", {
      ...document,
      server: { ...document.server, name: "Exported again" },
    });
    expect(imported.status).toBe(201);
    expect(imported.body.server.maxResultTokens).toBe(4000);
    const broken = structuredClone(document);
    broken.server.name = "Broken";
    broken.providers[0].tools[0].responseFilter = { language: "jq", expression: "[.users[" };
    const refused = await api("POST", "/servers/import", broken);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].path).toBe("providers[0].tools[0].responseFilter.expression");
  });
});
