import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { atBothWidths, type BrowserUnderTest, launchChromium, shots, watchedPage } from "./support/chromium.js";
import { serviceForFile } from "./support/file-service.js";
import { plant } from "./support/planted-secrets.js";
import { expectStatus } from "./support/problems.js";

// Issue 19, the console's pages for git connections and sync state (§17), server export and import (§16)
// and a provider's upstream OAuth connections (§13), in Debian's Chromium against the real service, the
// same harness as console.test.ts: no console error, no failed request, no request to another origin (the
// only console errors allowed are Chromium's lines for the 4xx answers a test provokes). The git sync worker
// is off here (startTestService without `gitSync`): an attached server's state stays PENDING.
// Screenshots land in apps/api/test-results/console/ (git-ignored).

const world = serviceForFile({ owner: "console-ext" });
let browser: BrowserUnderTest;

beforeAll(async () => {
  browser = await launchChromium({ allowedOrigins: [new URL(world.svc.url).origin], clipboard: true });
}, 600_000);

afterAll(() => browser?.close());

/** A page that records console errors and failed requests; `allowed` statuses are answers a test provokes. */
const openPage = () => watchedPage(browser);

/** Opens /console and signs in with `token` (dev-auth mode: a pasted access token). */
const signIn = async (page: Page, token: string) => {
  const response = await page.goto(`${world.svc.url}/console`);
  expect(response?.status()).toBe(200);
  await page.getByLabel("Access token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Servers" }).waitFor();
  // The list, too: a navigation while GET /servers is in flight aborts it, and `check` reports that.
  await page.getByRole("table").waitFor();
};

const fieldOf = (page: Page, label: string) => page.locator(".field", { has: page.getByLabel(label, { exact: true }) });

/** Picks `option` in the react-aria select labelled `label`. */
const choose = async (page: Page, label: string, option: string) => {
  await page.locator(".field", { hasText: label }).getByRole("button").first().click();
  await page.getByRole("option", { name: option }).click();
};

describe("the console's git, export/import and OAuth connection pages in Chromium", () => {
  it("creates a git connection (its token never shown), attaches it to a server and shows the sync state", async () => {
    const created = await world.owner.api.post("/servers", { server: { name: "Synced" } });
    expectStatus(created, 201);
    const serverId = created.body.server.id;
    const { page, check } = await openPage();
    await signIn(page, world.owner.token);
    await page.getByRole("link", { name: "Git connections" }).click();
    await page.getByRole("heading", { name: "Git connections" }).waitFor();
    await page.getByText("No git connections yet.").waitFor();

    // A generic host needs its URL: the service's error lands under Host URL.
    const token = `ghp_console${"Xy7".repeat(8)}`;
    plant(token, "git token");
    await page.getByLabel("Connection name", { exact: true }).fill("GitHub main");
    await choose(page, "Kind", "GENERIC");
    await page.getByLabel("Token", { exact: true }).fill(token);
    await page.getByRole("button", { name: "Create git connection" }).click();
    await expect.poll(() => fieldOf(page, "Host URL").locator(".field-error").textContent()).toContain("GENERIC");
    expect(await fieldOf(page, "Connection name").locator(".field-error").count()).toBe(0);

    // GitHub (the default host): created, listed, the token gone from the form and the page.
    await choose(page, "Kind", "GITHUB");
    await page.getByRole("button", { name: "Create git connection" }).click();
    const table = page.getByRole("table");
    await expect.poll(() => table.textContent()).toContain("GitHub main");
    expect(await table.textContent()).toContain("https://github.com");
    expect(await page.getByLabel("Token", { exact: true }).inputValue()).toBe("");
    expect(await page.content()).not.toContain(token);
    const listed = await world.owner.api.get("/git-connections");
    expectStatus(listed, 200);
    expect(listed.body.gitConnections.map((c: { name: string }) => c.name)).toEqual(["GitHub main"]);
    await atBothWidths(page, "git-connections");

    // Attach it to the server: a connection without a repository is refused under Repository.
    await page.goto(`${world.svc.url}/console#/servers/${serverId}`);
    await page.getByRole("heading", { name: "Synced" }).waitFor();
    await choose(page, "Git connection", "GitHub main (GITHUB)");
    await page.getByRole("button", { name: "Save server" }).click();
    await expect
      .poll(() => fieldOf(page, "Repository (owner/repo)").locator(".field-error").textContent())
      .toContain("required");
    await page.getByLabel("Repository (owner/repo)", { exact: true }).fill("acme/mcp-servers");
    await page.getByRole("button", { name: "Save server" }).click();
    await expect
      .poll(async () => (await world.owner.api.get(`/servers/${serverId}`)).body.server.gitProvider)
      .toBe("GITHUB");
    expect((await world.owner.api.get(`/servers/${serverId}`)).body.server.gitRepoFullName).toBe("acme/mcp-servers");

    // The sync state (the worker is off in this harness: the change waits, PENDING), with a refresh.
    await page.getByRole("tab", { name: "Git sync" }).click();
    const sync = page.getByTestId("git-sync");
    await expect.poll(() => sync.textContent()).toMatch(/PENDING|OFF/);
    expect(await sync.textContent()).toContain("acme/mcp-servers");
    await page.getByRole("button", { name: "Refresh sync state" }).click();
    await expect.poll(() => sync.textContent()).toMatch(/PENDING|OFF/);
    const state = (await world.owner.api.get(`/servers/${serverId}/git-sync`)).body.gitSync.state;
    expect(await sync.textContent()).toContain(state);
    await page.screenshot({ path: join(shots, "server-git-sync.png"), fullPage: true });

    // Deleting the connection (confirmed) empties the list.
    await page.getByRole("link", { name: "Git connections" }).click();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete GitHub main" }).click();
    await page.getByText("No git connections yet.").waitFor();
    expect((await world.owner.api.get("/git-connections")).body.gitConnections).toEqual([]);
    expect(await page.content()).not.toContain(token);
    check([400]);
    await page.close();
  }, 300_000);

  it("exports a server and imports the document under another name, the dry-run report first", async () => {
    const provider = await world.owner.api.post("/providers", {
      provider: { name: "Weather", baseURL: "https://weather.example.com" },
    });
    expectStatus(provider, 201);
    const providerId = provider.body.provider.id;
    expectStatus(
      await world.owner.api.post(`/providers/${providerId}/tools`, {
        tool: { name: "forecast", method: "GET", path: "/forecast" },
      }),
      201,
    );
    const server = await world.owner.api.post("/servers", {
      server: { name: "Forecasts", providers: [{ id: providerId }] },
    });
    expectStatus(server, 201);
    const serverId = server.body.server.id;

    const { page, check } = await openPage();
    await signIn(page, world.owner.token);
    await page.goto(`${world.svc.url}/console#/servers/${serverId}`);
    await page.getByRole("heading", { name: "Forecasts" }).waitFor();
    await page.getByRole("tab", { name: "Export" }).click();
    await page.getByRole("button", { name: "Export server" }).click();
    const exported = page.getByTestId("export-document");
    await exported.waitFor();
    const document = JSON.parse((await exported.textContent()) ?? "");
    expect(document.format).toBe("mcpsm.server.v1");
    expect(document.server.name).toBe("Forecasts");
    expect(document.providers[0].tools.map((t: { name: string }) => t.name)).toEqual(["forecast"]);
    // The download is the same document.
    const link = page.getByRole("link", { name: "Download Forecasts.export.json" });
    expect(await link.getAttribute("download")).toBe("Forecasts.export.json");
    const href = (await link.getAttribute("href")) ?? "";
    expect(JSON.parse(decodeURIComponent(href.replace(/^data:application\/json;charset=utf-8,/, "")))).toEqual(
      document,
    );
    await page.screenshot({ path: join(shots, "server-export.png"), fullPage: true });

    // Import: the same name is taken (shown under the name field); renamed, the dry run reports first.
    await page.getByRole("link", { name: "Servers" }).click();
    await page.getByRole("link", { name: "Import server" }).click();
    // The document comes from a file (the downloaded export), read in the browser into the text area.
    await page.locator('input[type="file"]').setInputFiles({
      name: "Forecasts.export.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(document)),
    });
    await expect
      .poll(() => page.getByLabel("Export document (JSON)", { exact: true }).inputValue())
      .toBe(JSON.stringify(document));
    await page.getByRole("button", { name: "Preview server import" }).click();
    await expect
      .poll(() => fieldOf(page, "Server name (optional override)").locator(".field-error").textContent())
      .toContain("already exists");
    await page.getByLabel("Server name (optional override)", { exact: true }).fill("Forecasts copy");
    await page.getByRole("button", { name: "Preview server import" }).click();
    const report = page.getByRole("region", { name: "Server import dry-run report" });
    await report.waitFor();
    expect(await report.textContent()).toContain("Forecasts copy");
    expect(await report.textContent()).toContain("1 reused");
    expect(await report.textContent()).toContain("1 matched");
    const before = (await world.owner.api.get("/servers")).body.servers.map((s: { name: string }) => s.name);
    expect(before).not.toContain("Forecasts copy");
    await page.screenshot({ path: join(shots, "server-import-preview.png"), fullPage: true });
    await page.getByRole("button", { name: "Apply server import" }).click();
    await page.getByRole("heading", { name: "Forecasts copy" }).waitFor();
    const copyId = page.url().split("/").pop() ?? "";
    const copy = await world.owner.api.get(`/servers/${copyId}`);
    expectStatus(copy, 200);
    expect(copy.body.server.providers[0].id).toBe(providerId);
    expect(copy.body.server.providers[0].tools.map((t: { name: string }) => t.name)).toEqual(["forecast"]);
    check([409]);
    await page.close();
  }, 300_000);

  it("lists a provider's OAuth connections and revokes one after confirmation", async () => {
    const provider = await world.owner.api.post("/providers", {
      provider: {
        name: "Calendar",
        baseURL: "https://calendar.example.com",
        oauth2Config: {
          clientID: "console-client",
          authURL: "https://auth.example.com/authorize",
          tokenURL: "https://auth.example.com/token",
        },
      },
    });
    expectStatus(provider, 201);
    const providerId = provider.body.provider.id;
    const seed = world.owner.api.seedConnection;
    if (seed === undefined) throw new Error("the harness seeds connections for tenants");
    await seed(providerId);
    const [connection] = (await world.owner.api.get(`/providers/${providerId}/connections`)).body.connections;

    const { page, check } = await openPage();
    await signIn(page, world.owner.token);
    await page.goto(`${world.svc.url}/console#/providers/${providerId}`);
    await page.getByRole("heading", { name: "Calendar" }).waitFor();
    const table = page.getByRole("table", { name: "OAuth connections" });
    await expect.poll(() => table.textContent()).toContain(connection.principal);
    expect(await table.textContent()).toContain("seeded");
    expect(await table.textContent()).toContain(connection.expiresAt);
    await page.screenshot({ path: join(shots, "provider-connections.png"), fullPage: true });

    // Dismissing the confirmation keeps it; accepting revokes it.
    page.once("dialog", (dialog) => void dialog.dismiss());
    await page.getByRole("button", { name: `Revoke ${connection.principal}` }).click();
    expect((await world.owner.api.get(`/providers/${providerId}/connections`)).body.connections).toHaveLength(1);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: `Revoke ${connection.principal}` }).click();
    await page.getByText("No connections yet.").waitFor();
    expect((await world.owner.api.get(`/providers/${providerId}/connections`)).body.connections).toEqual([]);

    // A provider without OAuth has no connections section.
    const plain = await world.owner.api.post("/providers", {
      provider: { name: "Plain", baseURL: "https://plain.example.com" },
    });
    expectStatus(plain, 201);
    await page.goto(`${world.svc.url}/console#/providers/${plain.body.provider.id}`);
    await page.getByRole("heading", { name: "Plain" }).waitFor();
    expect(await page.getByRole("heading", { name: "OAuth connections" }).count()).toBe(0);
    check();
    await page.close();
  }, 300_000);
});

describe("the import page's dry-run report in Chromium", () => {
  it("shows every skip and warning, grouped by reason, before the import is applied", async () => {
    const description = JSON.stringify({
      openapi: "3.0.3",
      info: { title: "Grouped", version: "1" },
      servers: [{ url: "https://grouped.example.com" }],
      paths: Object.fromEntries(
        ["a", "b", "c"].map((name) => [
          `/${name}`,
          {
            trace: { operationId: `trace${name}` },
            get: {
              operationId: `get${name}`,
              parameters: [{ name: "q", in: "query", schema: { type: "string", pattern: "^(?!x)" } }],
            },
          },
        ]),
      ),
    });
    const { page, check } = await openPage();
    await signIn(page, world.owner.token);
    await page.getByRole("link", { name: "Providers" }).click();
    await page.getByRole("link", { name: "Import OpenAPI" }).click();
    await page.getByLabel("OpenAPI description (JSON or YAML)").fill(description);
    await page.getByRole("button", { name: "Preview import" }).click();
    const skipped = page.getByRole("region", { name: "Skipped operations" });
    await skipped.waitFor();
    expect(await skipped.getByRole("heading").textContent()).toBe("Skipped operations: 3, 1 reason");
    expect(await skipped.getByRole("listitem").count()).toBe(3);
    const warnings = page.getByRole("region", { name: "Warnings" });
    expect(await warnings.getByRole("heading").textContent()).toBe("Warnings: 3, 1 reason");
    expect(await warnings.locator("summary").textContent()).toContain("3");
    expect(await warnings.getByRole("listitem").count()).toBe(3);
    expect((await world.owner.api.get("/providers?nameContains=Grouped")).body.matchCount).toBe(0);
    await page.screenshot({ path: join(shots, "import-grouped-report.png"), fullPage: true });
    check([]);
    await page.close();
  }, 120_000);
});
