import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserUnderTest, launchChromium, shots, watchedPage } from "./support/chromium.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { expectStatus } from "./support/problems.js";

// Issue 19, the web console in a real browser: Debian's chromium driven by playwright-core (as /docs is
// tested), against the real service (dev-auth mode) and a local upstream on loopback. Every request to
// another origin is refused (the console must work offline from what the service serves); the page may log
// no console error and no request may fail, except the API answers a test provokes on purpose (Chromium
// logs those as "Failed to load resource: … status of 409"). Screenshots land in
// apps/api/test-results/console/ (git-ignored).

let svc: TestService;
let owner: Tenant;
let upstream: Server;
let upstreamUrl: string;
const upstreamHits: Array<string> = [];
let browser: BrowserUnderTest;
let origin: string;

/** The description the journey imports: two operations of the local upstream. */
const petStore = () =>
  JSON.stringify(
    {
      openapi: "3.0.3",
      info: { title: "Pet Store", version: "1.0.0", description: "Pets of the console test" },
      servers: [{ url: upstreamUrl }],
      paths: {
        "/pets": {
          get: {
            operationId: "listPets",
            summary: "List the pets",
            parameters: [{ name: "limit", in: "query", schema: { type: "integer" } }],
            responses: { "200": { description: "pets" } },
          },
        },
        "/pets/{petId}": {
          get: {
            operationId: "getPet",
            summary: "One pet by id",
            parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" } }],
            responses: { "200": { description: "a pet" } },
          },
        },
      },
    },
    null,
    2,
  );

beforeAll(async () => {
  upstream = createServer((req, res) => {
    upstreamHits.push(`${req.method} ${req.url}`);
    // The description the URL import reads (fetched by the service, never by the browser).
    if (req.url === "/openapi.json") {
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(petStore().replace('"Pet Store"', '"Pet Store by URL"'));
    }
    if (req.url === "/gone.json") return res.writeHead(404).end();
    const pet = /^\/pets\/([^/?]+)/.exec(req.url ?? "");
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(pet ? { id: pet[1], name: `Rex the ${pet[1]}` } : [{ id: "1", name: "Rex" }]));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
  owner = await svc.tenant("console");
  origin = new URL(svc.url).origin;
  browser = await launchChromium({ allowedOrigins: [origin], clipboard: true });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  await svc?.close();
});

/** A page that records console errors and failed requests; `allowed` statuses are answers a test provokes. */
const openPage = () => watchedPage(browser);

/** Opens /console and signs in with `token` (dev-auth mode: a pasted access token). */
const signIn = async (page: Page, token: string) => {
  const response = await page.goto(`${svc.url}/console`);
  expect(response?.status()).toBe(200);
  expect(await response?.headerValue("content-security-policy")).toContain("script-src 'self'");
  await page.getByLabel("Access token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await serversListed(page);
};

/**
 * Waits until the servers page has its list, not just its heading: a reload or navigation while
 * GET /servers is still in flight aborts that request, which `check` would report as a failure.
 */
const serversListed = async (page: Page) => {
  await page.getByRole("heading", { name: "Servers" }).waitFor();
  await page.getByRole("table").waitFor();
};

/** The clipboard's text, as the page sees it (the test's types have no DOM, so the page runs a string). */
const readClipboard = (page: Page) => page.evaluate<string>("navigator.clipboard.readText()");

/** Ticks or unticks a checkbox as a person does: a click on its label. */
const tick = async (page: Page, name: RegExp, on: boolean) => {
  const box = page.getByRole("checkbox", { name });
  await page.locator("label.checkbox", { has: box }).click();
  await expect.poll(() => box.isChecked()).toBe(on);
};

const fieldOf = (page: Page, label: string) => page.locator(".field", { has: page.getByLabel(label, { exact: true }) });

describe("the web console in Chromium", () => {
  it("signs in with a pasted token, and refuses a bad one with the service's detail", async () => {
    const { page, check } = await openPage();
    await page.goto(`${svc.url}/console`);
    await page.getByLabel("Access token").waitFor();
    // Dev-auth mode: no authorization server to sign in with, a pasted token only.
    expect(await page.getByRole("button", { name: "Sign in with the authorization server" }).count()).toBe(0);
    await page.screenshot({ path: join(shots, "sign-in.png") });
    await page.getByLabel("Access token").fill("not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => fieldOf(page, "Access token").locator(".field-error").textContent()).not.toBe("");
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("Unauthorized");
    // By keyboard: the field has focus on arrival, Enter submits.
    await page.getByLabel("Access token").fill(owner.token);
    await page.keyboard.press("Enter");
    await serversListed(page);
    // The session survives a reload (sessionStorage), and signing out forgets it.
    await page.reload();
    await serversListed(page);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Access token").waitFor();
    check([401]);
    await page.close();
  }, 120_000);

  it("the journey: import a description, compose a server, mint a token, copy the config, try a tool, see the audit entry", async () => {
    const { page, check } = await openPage();
    await signIn(page, owner.token);

    // Import: paste the description, preview (dry run: nothing stored yet), then apply.
    await page.getByRole("link", { name: "Providers" }).click();
    await page.getByRole("link", { name: "Import OpenAPI" }).click();
    await page.getByLabel("OpenAPI description (JSON or YAML)").fill(petStore());
    await page.getByRole("button", { name: "Preview import" }).click();
    const report = page.getByRole("region", { name: "Dry-run report" });
    await report.waitFor();
    expect(await report.textContent()).toContain("2 added");
    expect((await owner.api.get("/providers")).body.matchCount).toBe(0);
    await page.screenshot({ path: join(shots, "import-preview.png"), fullPage: true });
    await page.getByRole("button", { name: "Apply import" }).click();
    await page.getByRole("heading", { name: "Pet Store" }).waitFor();
    expect(await page.getByRole("table").textContent()).toContain("GET /pets/{petId}");
    await page.screenshot({ path: join(shots, "provider.png"), fullPage: true });

    // The provider list with a filter.
    await page.getByRole("link", { name: "Providers" }).click();
    await page.getByRole("searchbox", { name: "Name contains" }).fill("pet");
    await expect.poll(() => page.getByText("1 provider match").count()).toBe(1);
    await page.screenshot({ path: join(shots, "providers.png") });

    // A prompt of the provider, to pick while composing.
    const providerId = (await owner.api.get("/providers?nameContains=Pet")).body.providers[0].id;
    const prompt = await owner.api.post(`/providers/${providerId}/prompts`, {
      prompt: { name: "Adopt", messages: [{ role: "user", content: { type: "text", text: "Adopt a pet" } }] },
    });
    expectStatus(prompt, 201);

    // Compose: search as you type, pick the provider, drop one tool; the counts follow.
    await page.getByRole("link", { name: "Servers" }).click();
    await page.getByRole("link", { name: "New server" }).click();
    await page.getByLabel("Server name", { exact: true }).fill("Pets");
    await page.getByRole("searchbox", { name: "Search providers and tools" }).fill("pet");
    await tick(page, /Pet Store/, true);
    await expect.poll(() => page.getByText("2 of 2 tools").count()).toBe(1);
    await tick(page, /listPets/, false);
    await expect.poll(() => page.getByText("1 of 2 tools").count()).toBe(1);
    expect(await page.locator("legend").first().textContent()).toContain("1 selected from 1 provider");
    await tick(page, /Prompt Adopt/, true);
    await page.screenshot({ path: join(shots, "compose.png"), fullPage: true });
    await page.getByRole("button", { name: "Create server" }).click();
    await page.getByRole("heading", { name: "Pets" }).waitFor();
    const serverId = page.url().split("/").pop() ?? "";
    const stored = await owner.api.get(`/servers/${serverId}`);
    expectStatus(stored, 200);
    expect(stored.body.server.providers[0].tools.map((t: { name: string }) => t.name)).toEqual(["getPet"]);
    expect(stored.body.server.prompts.map((p: { name: string }) => p.name)).toEqual(["Adopt"]);

    // Mint a token: shown once, copied to the clipboard. The tabs follow the arrow keys.
    await page.getByRole("tab", { name: "Compose" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => page.getByRole("tab", { name: "Tokens" }).getAttribute("aria-selected")).toBe("true");
    await page.getByLabel("Token name", { exact: true }).fill("laptop");
    await page.getByRole("button", { name: "Mint token" }).click();
    const minted = (await page.getByTestId("minted-token").textContent()) ?? "";
    expect(minted).toMatch(/^mcps_/);
    await page.getByRole("button", { name: "Copy token" }).click();
    await page.getByText("Copied").waitFor();
    expect(await readClipboard(page)).toBe(minted);
    await page.screenshot({ path: join(shots, "tokens.png"), fullPage: true });

    // The client configuration holds the endpoint and the token; copy VS Code's.
    await page.getByRole("tab", { name: "Connect" }).click();
    expect(await page.getByTestId("config-claude-desktop").textContent()).toContain("mcp-remote");
    await page.getByRole("tab", { name: "VS Code" }).click();
    await page.getByRole("button", { name: "Copy VS Code configuration" }).click();
    await page.getByText("Copied").first().waitFor();
    const vscode = JSON.parse(await readClipboard(page));
    expect(vscode.servers.pets).toEqual({
      type: "http",
      url: `${origin}/mcp/${serverId}`,
      headers: { Authorization: `Bearer ${minted}` },
    });
    await page.screenshot({ path: join(shots, "connect.png"), fullPage: true });

    // Try a tool over the real /mcp endpoint: the form comes from getPet's schema.
    await page.getByRole("tab", { name: "Try a tool" }).click();
    await page.getByRole("button", { name: "Connect with this token" }).click();
    await page.getByRole("button", { name: "Show the tools" }).click();
    await page.getByRole("option", { name: /getPet/ }).click();
    await page.getByLabel(/^petId/).fill("42");
    await page.getByRole("button", { name: "Call getPet" }).click();
    await expect
      .poll(() => page.getByTestId("tool-result").first().textContent(), { timeout: 30_000 })
      .toContain("Rex the 42");
    expect(upstreamHits).toContain("GET /pets/42");
    await page.screenshot({ path: join(shots, "try-tool.png"), fullPage: true });

    // Revoke the token: it leaves the list and the service.
    await page.getByRole("tab", { name: "Tokens" }).click();
    await page.getByRole("button", { name: "Revoke laptop" }).click();
    await expect.poll(() => page.getByRole("button", { name: "Revoke laptop" }).count()).toBe(0);
    // What is left is the console's own short-lived credential (issue 31), revoked when the page goes.
    await expect
      .poll(async () =>
        (await owner.api.get(`/servers/${serverId}/tokens`)).body.tokens.map((t: { name: string }) => t.name),
      )
      .toEqual(["console: try a tool"]);

    // The audit trail of the server shows its creation.
    await page.getByRole("tab", { name: "Audit" }).click();
    await expect.poll(() => page.getByTestId("audit").textContent()).toContain("createServer");
    await page.screenshot({ path: join(shots, "audit.png"), fullPage: true });

    // Re-sync the provider from a newer description: the diff first, then apply.
    await page.getByRole("link", { name: "Providers" }).click();
    await page.getByRole("link", { name: "Pet Store" }).click();
    await page.getByRole("tab", { name: "Re-sync" }).click();
    const newer = JSON.parse(petStore());
    newer.paths["/pets/{petId}"].delete = {
      operationId: "deletePet",
      summary: "Remove a pet",
      parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" } }],
      responses: { "204": { description: "gone" } },
    };
    await page.getByLabel("OpenAPI description (JSON or YAML)").fill(JSON.stringify(newer));
    await page.getByRole("button", { name: "Show the diff" }).click();
    const diff = page.getByRole("region", { name: "Re-sync diff" });
    await diff.waitFor();
    expect(await diff.textContent()).toContain("1 added");
    expect(await diff.textContent()).toContain("deletePet");
    await page.screenshot({ path: join(shots, "resync-diff.png"), fullPage: true });
    await page.getByRole("button", { name: "Apply re-sync" }).click();
    await page.getByRole("tab", { name: "Tools (3)" }).waitFor();

    // Deleting a provider a server uses is refused; the problem names the server.
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete provider" }).click();
    await page.getByRole("link", { name: serverId }).waitFor();
    expect(await page.getByRole("alert").first().textContent()).toContain("Conflict");

    // Readable on a phone.
    await page.goto(`${svc.url}/console#/servers/${serverId}`);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("tab", { name: "Compose" }).click();
    await page.screenshot({ path: join(shots, "server-phone.png"), fullPage: true });
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    check([409]);
    await page.close();
  }, 300_000);

  it("shows each validation error next to the field its errors path names, also in the JSON Schema editor", async () => {
    const { page, check } = await openPage();
    await signIn(page, owner.token);
    await page.goto(`${svc.url}/console#/providers/new`);
    await page.getByLabel("Name", { exact: true }).fill("Broken");
    await page.getByLabel("Base URL", { exact: true }).fill("ftp://files.example.com");
    await page.getByRole("button", { name: "Create provider" }).click();
    await expect.poll(() => fieldOf(page, "Base URL").locator(".field-error").textContent()).not.toBe("");
    expect(await fieldOf(page, "Name").locator(".field-error").count()).toBe(0);
    expect(await page.getByLabel("Base URL", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await page.screenshot({ path: join(shots, "validation-provider.png"), fullPage: true });

    // A tool whose path names {itemId} but whose path schema lacks it: the error lands under that editor.
    await page.getByLabel("Base URL", { exact: true }).fill("https://api.example.com");
    await page.getByRole("button", { name: "Create provider" }).click();
    await page.getByRole("heading", { name: "Broken" }).waitFor();
    await page.getByRole("button", { name: "New tool" }).click();
    await page.getByLabel("Tool name", { exact: true }).fill("getItem");
    await page.getByLabel("Path", { exact: true }).fill("/items/{itemId}");
    await page.getByRole("button", { name: "Save tool" }).click();
    const pathSchema = page.locator(".json-field", { has: page.getByTestId("pathArgsJSONSchema") });
    await expect.poll(() => pathSchema.locator(".field-error").textContent()).toMatch(/itemId/);
    expect(
      await page
        .locator(".json-field", { has: page.getByTestId("queryArgsJSONSchema") })
        .locator(".field-error")
        .textContent(),
    ).toBe("");

    // The editor's own lint: a schema that is not JSON disables Save and says why.
    const editor = page.getByTestId("reqBodyJSONSchema");
    await editor.click();
    await page.keyboard.press("Control+a");
    await page.keyboard.type("{ not json");
    await expect
      .poll(() => page.locator(".json-field", { has: editor }).locator(".field-error").textContent())
      .not.toBe("");
    expect(await page.getByRole("button", { name: "Save tool" }).isDisabled()).toBe(true);
    await page.screenshot({ path: join(shots, "validation-tool.png"), fullPage: true });
    check([400]);
    await page.close();
  }, 180_000);

  it("a version conflict (409) says so and reloads the latest server", async () => {
    const { page, check } = await openPage();
    const created = await owner.api.post("/servers", { server: { name: "Conflicted" } });
    expectStatus(created, 201);
    const id = created.body.server.id;
    await signIn(page, owner.token);
    await page.goto(`${svc.url}/console#/servers/${id}`);
    await page.getByRole("heading", { name: "Conflicted" }).waitFor();
    // Someone else renames it meanwhile.
    expectStatus(await owner.api.patch(`/servers/${id}`, { server: { name: "Renamed elsewhere" } }), 200);
    await page.getByLabel("Instructions", { exact: true }).fill("Mine");
    await page.getByRole("button", { name: "Save server" }).click();
    const reload = page.getByRole("button", { name: "Reload the latest version" });
    await reload.waitFor();
    expect(await page.getByRole("alert").first().textContent()).toContain("Conflict");
    await page.screenshot({ path: join(shots, "conflict.png"), fullPage: true });
    await reload.click();
    await page.getByRole("heading", { name: "Renamed elsewhere" }).waitFor();
    await expect.poll(() => page.getByLabel("Server name", { exact: true }).inputValue()).toBe("Renamed elsewhere");
    check([409]);
    await page.close();
  }, 120_000);

  it("pages through the provider list with the contract's nextToken, forwards and back", async () => {
    const many = await svc.tenant("console-paging");
    for (let i = 0; i < 23; i++)
      expectStatus(
        await many.api.post("/providers", {
          provider: { name: `Upstream ${String(i).padStart(2, "0")}`, baseURL: `https://u${i}.example.com` },
        }),
        201,
      );
    const { page, check } = await openPage();
    await signIn(page, many.token);
    await page.getByRole("link", { name: "Providers" }).click();
    await page.getByText("23 providers match").waitFor();
    const rows = page.locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(20);
    await page.getByRole("button", { name: "Next page" }).click();
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.first().textContent()).toContain("Upstream 20");
    expect(await page.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Previous page" }).click();
    await expect.poll(() => rows.count()).toBe(20);
    expect(await rows.first().textContent()).toContain("Upstream 00");
    check();
    await page.close();
  }, 120_000);

  it("variables: a secret's value is never shown", async () => {
    const { page, check } = await openPage();
    await signIn(page, owner.token);
    await page.getByRole("link", { name: "Variables" }).click();
    await page.getByLabel("Variable name", { exact: true }).fill("API_EXAMPLE_COM_KEY");
    await page.getByLabel("Value", { exact: true }).fill("s3cret-value-never-shown");
    await page.getByRole("button", { name: "Add variable" }).click();
    await page.getByText("API_EXAMPLE_COM_KEY", { exact: true }).waitFor();
    expect(await page.content()).not.toContain("s3cret-value-never-shown");
    expect(await page.getByRole("table").textContent()).toContain("hidden");
    await page.screenshot({ path: join(shots, "variables.png"), fullPage: true });
    check();
    await page.close();
  }, 120_000);

  it("imports a description by URL: the service fetches it, the dry run shows first, a 404 shows at the URL", async () => {
    const byUrl = await svc.tenant("console-url");
    const { page, check } = await openPage();
    await signIn(page, byUrl.token);
    await page.getByRole("link", { name: "Providers" }).click();
    await page.getByRole("link", { name: "Import OpenAPI" }).click();
    const urlField = page.getByLabel("…or its URL (fetched by the service)");
    await urlField.fill(`${upstreamUrl}/gone.json`);
    await page.getByRole("button", { name: "Preview import" }).click();
    await expect
      .poll(() => fieldOf(page, "…or its URL (fetched by the service)").textContent())
      .toContain("answered 404");
    await urlField.fill(`${upstreamUrl}/openapi.json`);
    await page.getByRole("button", { name: "Preview import" }).click();
    const report = page.getByRole("region", { name: "Dry-run report" });
    await report.waitFor();
    expect(await report.textContent()).toContain("2 added");
    expect((await byUrl.api.get("/providers")).body.matchCount).toBe(0);
    await page.screenshot({ path: join(shots, "import-url-preview.png"), fullPage: true });
    await page.getByRole("button", { name: "Apply import" }).click();
    await page.getByRole("heading", { name: "Pet Store by URL" }).waitFor();
    expect((await byUrl.api.get("/providers")).body.providers[0].name).toBe("Pet Store by URL");
    expect(upstreamHits).toContain("GET /openapi.json");
    check([400]);
    await page.close();
  }, 120_000);
});
