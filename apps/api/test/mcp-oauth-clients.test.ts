import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/harness.js";
import { consentWithServerToken } from "./support/oauth-user-agent.js";
import { expectStatus } from "./support/problems.js";

// Issue 16: OAuth-only MCP clients against the running service in dev-auth mode, where the service is its MCP
// endpoints' authorization server by default: the SDK client's own OAuth flow, and mcp-remote (the stdio
// bridge Claude Desktop and others use), each consenting on the service's page with a pasted server token.

let svc: TestService;
let serverId: string;
let serverUrl: string;
let serverToken: string;

beforeAll(async () => {
  svc = await startTestService();
  const owner = await svc.tenant("oauth");
  const server = await owner.api.post("/servers", { server: { name: "OAuth clients" } });
  expectStatus(server, 201);
  serverId = server.body.server.id;
  serverUrl = `${svc.url}/mcp/${serverId}`;
  const minted = await owner.api.post(`/servers/${serverId}/tokens`, { token: { name: "consent" } });
  expectStatus(minted, 201);
  serverToken = minted.body.token.value;
});

afterAll(() => svc?.close());

describe("discovery in dev-auth mode", () => {
  it("the protected resource metadata names the service itself; RFC 8414 metadata is served", async () => {
    const prm = await (await fetch(`${svc.url}/.well-known/oauth-protected-resource/mcp/${serverId}`)).json();
    expect(prm).toMatchObject({ resource: serverUrl, authorization_servers: [svc.url], scopes_supported: ["mcp"] });
    const as = await fetch(`${svc.url}/.well-known/oauth-authorization-server`);
    expect(as.status).toBe(200);
    expect(await as.json()).toMatchObject({ issuer: svc.url, registration_endpoint: `${svc.url}/oauth/register` });
  });
});

describe("the SDK client's own OAuth flow", () => {
  it("registers, is sent to consent, exchanges the code and calls the server", async () => {
    const redirect = "http://127.0.0.1:1/callback";
    const state: {
      info?: Parameters<NonNullable<OAuthClientProvider["saveClientInformation"]>>[0];
      tokens?: Parameters<OAuthClientProvider["saveTokens"]>[0];
      verifier: string;
      url?: URL;
    } = { verifier: "" };
    const provider: OAuthClientProvider = {
      redirectUrl: redirect,
      clientMetadata: { client_name: "SDK", redirect_uris: [redirect], token_endpoint_auth_method: "none" },
      clientInformation: () => state.info,
      saveClientInformation: (info) => {
        state.info = info;
      },
      tokens: () => state.tokens,
      saveTokens: (tokens) => {
        state.tokens = tokens;
      },
      redirectToAuthorization: (url) => {
        state.url = url;
      },
      saveCodeVerifier: (verifier) => {
        state.verifier = verifier;
      },
      codeVerifier: () => state.verifier,
    };
    const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
    await expect(new Client({ name: "sdk", version: "1" }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const landed = await consentWithServerToken(state.url?.href ?? "", serverToken, redirect);
    await transport.finishAuth(new URL(landed.url).searchParams);
    const client = new Client({ name: "sdk", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
    expect(client.getServerVersion()?.name).toBe("OAuth clients");
    expect((await client.listTools()).tools).toEqual([]);
    await client.close();
  });
});

/** A free loopback port (for mcp-remote's OAuth callback listener). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });

describe("mcp-remote", () => {
  let child: ChildProcessWithoutNullStreams | undefined;
  let configDir: string;
  afterAll(async () => {
    child?.kill();
    if (configDir !== undefined) await rm(configDir, { recursive: true, force: true });
  });

  it("registers dynamically, completes the flow through its callback, and proxies tools/list", async () => {
    configDir = await mkdtemp(join(tmpdir(), "mcp-remote-"));
    const callbackPort = await freePort();
    const bin = join(import.meta.dirname, "..", "node_modules", "mcp-remote", "dist", "proxy.js");
    child = spawn(process.execPath, [bin, serverUrl, String(callbackPort), "--host", "127.0.0.1"], {
      // No browser to open: the URL is read from its log, as a person would copy it.
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: "false", DISPLAY: "", PATH: "/nonexistent" },
    });
    const running = child;
    const stderr: Array<string> = [];
    const authorizationUrl = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: running.stderr });
      lines.on("line", (line) => {
        stderr.push(line);
        const match = /(https?:\/\/\S+\/oauth\/authorize\?\S+)/.exec(line);
        if (match?.[1]) resolve(match[1]);
      });
      running.once("exit", (code) => reject(new Error(`mcp-remote exited (${code}):\n${stderr.join("\n")}`)));
    });
    const callback = `http://127.0.0.1:${callbackPort}/oauth/callback`;
    const landed = await consentWithServerToken(authorizationUrl, serverToken, callback);
    // The person's browser arrives at mcp-remote's callback with the code.
    expect(new URL(landed.url).searchParams.get("code")).toBeTruthy();
    const arrived = await fetch(landed.url);
    expect(arrived.status).toBeLessThan(400);

    const responses = createInterface({ input: running.stdout });
    const answers = new Map<number, unknown>();
    const waiting = new Map<number, (value: unknown) => void>();
    responses.on("line", (line) => {
      try {
        const message = JSON.parse(line) as { id?: number };
        if (typeof message.id === "number") {
          answers.set(message.id, message);
          waiting.get(message.id)?.(message);
        }
      } catch {
        // not a JSON-RPC line
      }
    });
    const request = (id: number, method: string, params: object = {}) =>
      new Promise<unknown>((resolve) => {
        waiting.set(id, resolve);
        running.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
        if (answers.has(id)) resolve(answers.get(id));
      });
    const init = await request(1, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "stdio-host", version: "1" },
    });
    expect(init).toMatchObject({ result: { serverInfo: { name: "OAuth clients" } } });
    running.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    expect(await request(2, "tools/list")).toMatchObject({ result: { tools: [] } });
  });
});
