import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Option } from "effect";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { startTestService, type TestService } from "./support/harness.js";
import { expectStatus } from "./support/problems.js";

// Issue 16, browser clients in a real browser (Debian's chromium driven by playwright-core): a page served
// from another origin calls /mcp/{id} with fetch, as the Inspector's web UI does. The browser itself enforces
// CORS: the preflight must pass without a credential, the 401 challenge must be readable, and an origin
// outside MCP_ALLOWED_ORIGINS must be blocked.

const CHROMIUM = "/usr/bin/chromium";
const repoRoot = join(import.meta.dirname, "..", "..", "..");

let svc: TestService;
let pages: Loopback;
let pagePort: number;
let userDataDir: string;
let context: BrowserContext;
let mcpUrl: string;
let token: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    execFileSync("bash", [join(repoRoot, "scripts", "ensure-chromium.sh")], { stdio: "inherit", timeout: 540_000 });
  svc = await startTestService({ mcp: { allowedOrigins: Option.some(["127.0.0.1"]) } });
  const owner = await svc.tenant("browser");
  const server = await owner.api.post("/servers", { server: { name: "Browser server" } });
  expectStatus(server, 201);
  const minted = await owner.api.post(`/servers/${server.body.server.id}/tokens`, { token: { name: "web" } });
  expectStatus(minted, 201);
  token = minted.body.token.value;
  mcpUrl = `${svc.url}/mcp/${server.body.server.id}`;
  // The web client's own origin: an empty page on another port (and, as localhost, another host name).
  pages = await listenOnLoopback((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end("<!doctype html><title>web client</title>");
  });
  pagePort = pages.port;
  userDataDir = await mkdtemp(join(tmpdir(), "mcpsm-chromium-"));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
}, 600_000);

afterAll(async () => {
  await context?.close();
  if (userDataDir !== undefined) await rm(userDataDir, { recursive: true, force: true });
  await pages?.close();
  await svc?.close();
});

/** Runs the web client's calls in a page of `origin`; each step's outcome, or `blocked` when CORS refuses. */
const fromPage = async (origin: string) => {
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(
      async ({ url, bearer }) => {
        const rpc = (body: object, auth: boolean, version?: string) =>
          fetch(url, {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              Accept: "application/json, text/event-stream",
              ...(auth ? { Authorization: `Bearer ${bearer}` } : {}),
              ...(version ? { "MCP-Protocol-Version": version } : {}),
            },
            body: JSON.stringify({ jsonrpc: "2.0", ...body }),
          }).then(
            async (res) => ({
              status: res.status,
              challenge: res.headers.get("WWW-Authenticate"),
              text: await res.text(),
            }),
            () => "blocked" as const,
          );
        const initialize = {
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "web", version: "1" } },
        };
        return {
          unauthenticated: await rpc(initialize, false),
          initialize: await rpc(initialize, true),
          tools: await rpc({ id: 2, method: "tools/list" }, true, "2025-11-25"),
        };
      },
      { url: mcpUrl, bearer: token },
    );
  } finally {
    await page.close();
  }
};

describe("a browser-based MCP client on another origin", () => {
  it("passes the preflight, reads the 401 challenge, initializes and lists tools", async () => {
    const outcome = await fromPage(`http://127.0.0.1:${pagePort}`);
    expect(outcome.unauthenticated).toMatchObject({ status: 401 });
    expect(outcome.unauthenticated).not.toBe("blocked");
    if (outcome.unauthenticated !== "blocked")
      expect(outcome.unauthenticated.challenge).toContain("resource_metadata=");
    expect(outcome.initialize).toMatchObject({ status: 200 });
    if (outcome.initialize !== "blocked") expect(outcome.initialize.text).toContain("Browser server");
    expect(outcome.tools).toMatchObject({ status: 200 });
    if (outcome.tools !== "blocked") expect(outcome.tools.text).toContain('"tools":[]');
  });

  it("is blocked by the browser when its origin is not in MCP_ALLOWED_ORIGINS", async () => {
    const outcome = await fromPage(`http://localhost:${pagePort}`);
    expect(outcome).toEqual({ unauthenticated: "blocked", initialize: "blocked", tools: "blocked" });
  });
});
