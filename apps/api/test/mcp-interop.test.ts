import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Storage } from "@mcpsm/domain/storage";
import { defaultMcpSettings } from "@mcpsm/mcp-runtime";
import { Layer, ManagedRuntime } from "effect";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintDevToken } from "../src/auth/dev-auth.js";
import { localConfig } from "../src/config/local-config.js";
import { type RunningService, startService } from "../src/service.js";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { testStorage } from "./support/test-storage.js";
import { startBearerProxy } from "./mcp-bearer-proxy.js";

// Real third-party clients against a running instance: the MCP Inspector CLI, and the official conformance
// suite in server mode (through a proxy that adds the bearer token), with a committed expected-failures baseline.

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const inspector = join(packageDir("@modelcontextprotocol/inspector"), "clients/launcher/build/index.js");
const conformance = join(packageDir("@modelcontextprotocol/conformance"), "dist/index.js");

let service: RunningService;
// The suite's store (support/test-storage.ts decides which), built here like the harness does.
const store = ManagedRuntime.make(testStorage());
let upstream: Loopback;
let dataDir: string;
let mcpUrl: string;
let serverToken: string;

beforeAll(async () => {
  upstream = await listenOnLoopback((req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ id: req.url?.split("/").at(-1), name: "widget" }));
  });
  dataDir = await mkdtemp(join(tmpdir(), "mcpsm-interop-"));
  service = await startService(
    localConfig(dataDir, { mcp: defaultMcpSettings({ upstreamAllowedNetworks: ["127.0.0.0/8"] }) }),
    { storage: Layer.succeed(Storage, await store.runPromise(Storage)), logger: pino({ level: "silent" }) },
  );
  const admin = await mintDevToken(dataDir, { subject: "interop" });
  // Each create answers the record under its kind's key: { provider: {...} }, { token: {...} }.
  const post = async <Answer>(path: string, body: unknown): Promise<Answer> => {
    const response = await fetch(`${service.url}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Answer;
  };
  const { provider } = await post<{ provider: { id: string } }>("/providers", {
    provider: { name: "Items", baseURL: upstream.url },
  });
  await post(`/providers/${provider.id}/tools`, {
    tool: {
      name: "getItem",
      description: "Reads one item",
      method: "GET",
      path: "/items/{id}",
      pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    },
  });
  // The two prompts the conformance suite's prompt scenarios ask for; a configured server can have them.
  const simple = await post<{ prompt: { id: string } }>(`/providers/${provider.id}/prompts`, {
    prompt: {
      name: "test_simple_prompt",
      description: "A simple prompt",
      messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }],
    },
  });
  const withArgs = await post<{ prompt: { id: string } }>(`/providers/${provider.id}/prompts`, {
    prompt: {
      name: "test_prompt_with_arguments",
      description: "A prompt with arguments",
      arguments: [
        { name: "arg1", required: true },
        { name: "arg2", required: true },
      ],
      messages: [
        { role: "user", content: { type: "text", text: "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'" } },
      ],
    },
  });
  const { server } = await post<{ server: { id: string } }>("/servers", {
    server: {
      name: "Interop",
      instructions: "Item tools",
      providers: [{ id: provider.id }],
      prompts: [{ id: simple.prompt.id }, { id: withArgs.prompt.id }],
    },
  });
  mcpUrl = `${service.url}/mcp/${server.id}`;
  serverToken = (
    await post<{ token: { value: string } }>(`/servers/${server.id}/tokens`, { token: { name: "interop" } })
  ).token.value;
});

afterAll(async () => {
  await service?.close();
  await upstream?.close();
  await store.dispose();
  await rm(dataDir, { recursive: true, force: true });
});

describe("third-party MCP clients", () => {
  const cli = (...args: Array<string>) =>
    run(
      process.execPath,
      [inspector, "--cli", mcpUrl, "--transport", "http", "--header", `Authorization: Bearer ${serverToken}`, ...args],
      {
        env: { ...process.env, MCP_CATALOG_PATH: join(dataDir, "inspector-catalog.json") },
        timeout: 60_000,
      },
    );

  it("the MCP Inspector CLI lists the tools and calls one", async () => {
    const listed = JSON.parse((await cli("--method", "tools/list")).stdout);
    expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(["getItem"]);
    const called = JSON.parse(
      (await cli("--method", "tools/call", "--tool-name", "getItem", "--tool-arg", 'pathArgs={"id":"42"}')).stdout,
    );
    expect(called.structuredContent).toEqual({ id: "42", name: "widget" });
  }, 60_000);

  it("passes the conformance suite's server scenarios except the committed baseline", async () => {
    const proxy = await startBearerProxy(service.url, serverToken);
    try {
      const outcome = await run(
        process.execPath,
        [
          conformance,
          "server",
          "--url",
          `${proxy.url}${new URL(mcpUrl).pathname}`,
          "--expected-failures",
          join(here, "mcp-conformance-baseline.yml"),
          "--output-dir",
          join(dataDir, "conformance"),
        ],
        { timeout: 120_000 },
      ).then(
        (done) => ({ code: 0, output: done.stdout + done.stderr }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({
          code: error.code ?? 1,
          output: `${error.stdout ?? ""}${error.stderr ?? ""}`,
        }),
      );
      expect(outcome.output).toMatch(/server-initialize: 1 passed, 0 failed/);
      expect(outcome.output).toMatch(/tools-list: 1 passed, 0 failed/);
      expect(outcome.output).toMatch(/dns-rebinding-protection: \d+ passed, 0 failed/);
      expect(outcome.code, outcome.output.slice(-3000)).toBe(0);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
