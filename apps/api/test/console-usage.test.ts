import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { atBothWidths, type BrowserUnderTest, launchChromium, watchedPage } from "./support/chromium.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { createProvider, createServer as createMcpServer, createToken, createTool } from "./support/records.js";

// Issue 31, what agents do, in the console (Chromium against the real service, both stores: the suite's two
// projects): a server's Usage tab shows the calls an MCP client made (totals and charts), its live tail
// shows a call made while it is open, and the tenant's Usage page has a row per server. Screenshots at
// desktop and phone widths land in apps/api/test-results/console/ (copied to docs/screenshots/ by hand).

let svc: TestService;
let owner: Tenant;
let upstream: Loopback | undefined;
let browser: BrowserUnderTest;
let serverId: string;
let otherServerId: string;
let client: Client;

beforeAll(async () => {
  upstream = await listenOnLoopback((req, res) => {
    const failing = (req.url ?? "").startsWith("/down");
    res.writeHead(failing ? 503 : 200, { "Content-Type": "application/json" });
    res.end(
      failing
        ? '{"error":"down"}'
        : JSON.stringify({
            pets: [
              { id: 1, name: "Rex" },
              { id: 2, name: "Tom" },
            ],
          }),
    );
  });
  svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
  owner = await svc.tenant("console-usage");
  const provider = await createProvider(owner.api, {
    baseURL: upstream.url,
  });
  await createTool(owner.api, provider.id, { name: "listPets", path: "/pets" });
  await createTool(owner.api, provider.id, { name: "brokenPets", path: "/down" });
  serverId = (await createMcpServer(owner.api, { name: "Pets", providers: [{ id: provider.id }] })).id;
  otherServerId = (await createMcpServer(owner.api, { name: "Quiet", providers: [{ id: provider.id }] })).id;
  client = new Client({ name: "console-usage-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${serverId}`), {
      requestInit: { headers: { Authorization: `Bearer ${(await createToken(owner.api, serverId)).value}` } },
    }),
  );
  browser = await launchChromium({ allowedOrigins: [new URL(svc.url).origin] });
}, 300_000);

afterAll(async () => {
  await client?.close();
  await browser?.close();
  await upstream?.close();
  await svc?.close();
});

const signIn = async (page: Page) => {
  await page.goto(`${svc.url}/console`);
  await page.getByLabel("Access token").fill(owner.token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("table").waitFor();
};

describe("the console's usage page and live tail", () => {
  it("shows a server's calls, errors, latency and tokens, and tails new calls as they are made", async () => {
    for (let i = 0; i < 3; i++) expect((await client.callTool({ name: "listPets" })).isError).toBeFalsy();
    expect((await client.callTool({ name: "brokenPets" })).isError).toBe(true);
    await svc.flushCalls();

    const { page, check } = await watchedPage(browser);
    await signIn(page);
    await page.goto(`${svc.url}/console#/servers/${serverId}`);
    await page.getByRole("tab", { name: "Usage" }).click();
    const totals = page.getByTestId("usage-totals");
    await expect.poll(() => totals.textContent(), { timeout: 30_000 }).toContain("Calls4");
    expect(await totals.textContent()).toContain("Errors1 (25.0 %)");
    expect(await totals.textContent()).toMatch(/p95 latency\d/);
    // The result tokens are shaping's counts of the three answers that came back whole.
    const tokens = Number(
      (await totals.locator("div", { hasText: "Result tokens" }).locator("dd").textContent())?.replace(/,/g, ""),
    );
    expect(tokens).toBeGreaterThan(3);
    // Per tool: calls, error rate and the average answer, the same before and after (no filter here).
    const toolRows = page.getByTestId("usage-tools").locator("tbody tr");
    expect(await toolRows.count()).toBe(2);
    const [name, toolCalls, errorRate, before, after, saved] = await toolRows.first().locator("td").allTextContents();
    expect([name, toolCalls, errorRate, saved]).toEqual(["listPets", "3", "0.0 %", ""]);
    expect(Number(before)).toBeGreaterThan(0);
    expect(after).toBe(before);
    expect(await toolRows.nth(1).locator("td").allTextContents()).toEqual(
      expect.arrayContaining(["brokenPets", "1", "100.0 %"]),
    );
    // The calls chart holds the four calls, the error drawn apart.
    const calls = page.getByRole("img", { name: /^Calls/ });
    expect(await calls.getAttribute("data-total")).toBe("4");
    expect(await calls.locator("rect.part").count()).toBe(1);
    await page.getByLabel("Window").selectOption("1h");
    await expect
      .poll(() => page.getByRole("img", { name: /^Calls/ }).getAttribute("aria-label"))
      .toMatch(/^Calls.*: 6[01] buckets/);

    // The live tail: a call made while the tab is open shows up in it, with its status and tokens.
    await expect.poll(() => page.getByTestId("tail-state").textContent(), { timeout: 30_000 }).toBe("live");
    expect((await client.callTool({ name: "listPets" })).isError).toBeFalsy();
    await svc.flushCalls();
    const live = page.getByTestId("live-calls").locator("tbody tr");
    await expect.poll(() => live.count(), { timeout: 30_000 }).toBe(1);
    expect(await live.first().textContent()).toContain("listPets");
    expect(await live.first().textContent()).toContain("ok · 200");
    // The figures follow the tail.
    await expect.poll(() => totals.textContent(), { timeout: 30_000 }).toContain("Calls5");
    await atBothWidths(page, "usage-server");
    check();
    await page.close();
  }, 180_000);

  it("shows the tenant's usage with a row per server", async () => {
    const { page, check } = await watchedPage(browser);
    await signIn(page);
    await page.getByRole("link", { name: "Usage" }).click();
    const rows = page.getByTestId("usage-servers").locator("tbody tr");
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(1);
    expect(await rows.first().textContent()).toContain(serverId);
    expect(await rows.first().textContent()).not.toContain(otherServerId);
    expect(await page.getByTestId("usage-totals").textContent()).toContain("Calls5");
    await atBothWidths(page, "usage-tenant");
    check();
    await page.close();
  }, 120_000);
});
