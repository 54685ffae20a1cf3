import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  atBothWidths,
  type BrowserUnderTest,
  DESKTOP,
  launchChromium,
  shots,
  watchedPage,
} from "./support/chromium.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { expectStatus } from "./support/problems.js";

// Issue 31, the console at real-API scale, in Chromium against the real service (both stores: the suite's
// two projects): GitHub's REST description (845 operations; the committed, trimmed fixture that
// bench/lib/github-fixture.mjs writes) imported with its server URL pointed at a loopback upstream, a
// provider of 5,000 tools, and "Try a tool" with an array-of-enum argument. Screenshots at desktop and phone
// widths land in apps/api/test-results/console/ and are copied to docs/screenshots/ by hand when they change.

let svc: TestService;
let owner: Tenant;
let upstream: Loopback | undefined;
let upstreamUrl: string;
const upstreamHits: Array<string> = [];
let browser: BrowserUnderTest;
let github: { id: string; tools: Array<{ id: string; name: string }> };

const GITHUB_FIXTURE = join(import.meta.dirname, "fixtures", "github.openapi.json.gz");
/** How long to wait for what needs an answer of the service (tool pages, the filter after its 200 ms pause). */
const SERVICE = { timeout: 30_000 };

/** GitHub's description, calling `url` instead of api.github.com. */
const githubDescription = (url: string) => {
  const document = JSON.parse(gunzipSync(readFileSync(GITHUB_FIXTURE)).toString("utf8"));
  document.servers = [{ url }];
  return JSON.stringify(document);
};

/** A description of `count` operations, one path each, with HTML descriptions (one planted handler each). */
const manyOperations = (count: number) => {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < count; i++)
    paths[`/things/${i}/{thingId}`] = {
      get: {
        operationId: `getThing${i}`,
        summary: `Thing number ${i}`,
        // HTML, as many descriptions are: the import converts it to Markdown, the console renders that.
        description: `<p>Reads <strong>thing ${i}</strong> of the warehouse, with its <a href="https://example.com/things/${i}">history</a>.</p><img src=x onerror="window.hostile=${i}">`,
        parameters: [{ name: "thingId", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "the thing" } },
      },
    };
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Warehouse", version: "1" },
    servers: [{ url: "https://warehouse.example.com" }],
    paths,
  });
};

beforeAll(async () => {
  upstream = await listenOnLoopback((req, res) => {
    upstreamHits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify([{ id: 79, state: "exported", repositories: [] }]));
  });
  upstreamUrl = upstream.url;
  svc = await startTestService({
    mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] },
    quotas: { toolsPerProvider: 5_000 },
  });
  owner = await svc.tenant("console-scale");
  const imported = await owner.api.post("/providers/import", {
    import: { document: githubDescription(upstreamUrl), dryRun: false },
  });
  expectStatus(imported, 201);
  github = imported.body.provider;
  browser = await launchChromium({ allowedOrigins: [new URL(svc.url).origin] });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await upstream?.close();
  await svc?.close();
});

const signIn = async (page: Page, token: string) => {
  await page.goto(`${svc.url}/console`);
  await page.getByLabel("Access token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("table").waitFor();
};

describe("the console at real-API scale", () => {
  it("composes 4 of GitHub's tools in at most 6 interactions; a search lists the matching tools", async () => {
    expect(github.tools.length).toBe(845);
    const { page, check } = await watchedPage(browser);
    // The words: the sign-in hint is a command that works, the discovery switch names the real tools.
    await page.goto(`${svc.url}/console`);
    await page.getByText("./run token --sub <tenant>", { exact: false }).waitFor();
    await signIn(page, owner.token);
    await page.goto(`${svc.url}/console#/servers/new`);
    expect(await page.getByText("clients see searchTools/useTool instead of every tool").count()).toBe(1);
    await page.getByText("1 provider", { exact: true }).waitFor();
    let interactions = 0;
    const act = async (step: () => Promise<unknown>) => {
      interactions++;
      await step();
    };
    const search = page.getByRole("searchbox", { name: "Search providers and tools" });

    // "issue": the provider opens by itself and lists its matching tools, each with its title.
    await search.fill("issue");
    await page.getByText(/^\d+ tools match in 1 provider$/).waitFor();
    const matching = Number((await page.getByText(/tools match in/).textContent())?.split(" ")[0]);
    expect(matching).toBeGreaterThan(40);
    const listed = page.locator(".tool-picks").getByRole("checkbox");
    await expect.poll(() => listed.count()).toBe(Math.min(matching, 50));
    expect(await page.locator(".tool-picks").first().textContent()).toContain("List repository issues");
    await page.screenshot({ path: join(shots, "compose-search-desktop.png") });
    await search.fill("");

    // The journey a person makes: name, search, select the matching, create.
    await act(() => page.getByLabel("Server name", { exact: true }).fill("Gist stars"));
    await act(() => search.fill("gist star"));
    await act(() => page.getByRole("button", { name: "Select the 4 matching" }).click());
    await expect.poll(() => page.getByTestId("tool-count").textContent()).toBe("4 selected from 1 provider");
    await atBothWidths(page, "compose", { fullPage: false });
    await act(() => page.getByRole("button", { name: "Create server" }).click());
    await page.getByRole("heading", { name: "Gist stars" }).waitFor();
    expect(interactions).toBeLessThanOrEqual(6);
    const serverId = page.url().split("/").pop() ?? "";
    const stored = await owner.api.get(`/servers/${serverId}`);
    expect(stored.body.server.providers[0].tools.map((t: { name: string }) => t.name).sort()).toEqual([
      "checkGistsIsStarred",
      "listGistsStarred",
      "starGists",
      "unstarGists",
    ]);

    // "Clear" empties the choice; the provider's own box selects all of it.
    await page.getByRole("button", { name: "Clear" }).click();
    await expect.poll(() => page.getByTestId("tool-count").textContent()).toBe("0 selected from 0 providers");
    await page.locator("label.checkbox", { has: page.getByRole("checkbox", { name: /All tools of/ }) }).click();
    await expect.poll(() => page.getByTestId("tool-count").textContent()).toBe("845 selected from 1 provider");
    check();
    await page.close();
  }, 240_000);

  it("the provider page of 5,000 tools: filtered, paged, fixed columns, actions on screen, editor in place", async () => {
    const big = await svc.tenant("console-scale-5000");
    const imported = await big.api.post("/providers/import", {
      import: { document: manyOperations(5_000), dryRun: false },
    });
    expectStatus(imported, 201);
    const provider = imported.body.provider;
    expect(provider.tools.length).toBe(5_000);
    const { page, check } = await watchedPage(browser);
    await signIn(page, big.token);
    // What the page asks the service for its tools: pages of 50, never the whole list (issue 31).
    const toolRequests: Array<URL> = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === `/providers/${provider.id}/tools`) toolRequests.push(url);
    });
    await page.goto(`${svc.url}/console#/providers/${provider.id}`);
    await page.getByRole("tab", { name: "Tools (5000)" }).waitFor();
    const rows = page.locator(".tool-table tbody tr");
    await expect.poll(() => rows.count(), SERVICE).toBe(50);
    expect(await page.getByTestId("tool-range").textContent()).toBe("1–50 of 5000");
    // Small and fixed: the page is a few screens tall, the description keeps its width, the actions show.
    expect(await page.evaluate<number>("document.documentElement.scrollHeight")).toBeLessThan(20_000);
    expect(
      await page.evaluate<string>("getComputedStyle(document.querySelector('.tool-table table')).tableLayout"),
    ).toBe("fixed");
    const description = await page.locator(".tool-table thead th").nth(2).boundingBox();
    expect(description?.width).toBeGreaterThan(250);
    const edit = page.getByRole("button", { name: "Edit getThing0", exact: true });
    const box = await edit.boundingBox();
    expect((box?.x ?? Number.POSITIVE_INFINITY) + (box?.width ?? 0)).toBeLessThanOrEqual(DESKTOP.width);
    // Descriptions are Markdown, sanitised: bold and links render, the planted handler does not.
    const first = rows.first();
    expect(await first.locator(".markdown strong").textContent()).toBe("thing 0");
    expect(await first.locator(".markdown a").getAttribute("rel")).toBe("noopener noreferrer");
    expect(await page.locator(".tool-table img").count()).toBe(0);
    expect(await page.evaluate<unknown>("window.hostile")).toBeUndefined();
    await atBothWidths(page, "provider-tools", { fullPage: false });

    // Paging and the filter (one text, ignoring case), both done by the service.
    expect(toolRequests.map((url) => url.search)).toEqual(["?limit=50"]);
    await page.getByRole("button", { name: "Next page" }).click();
    await expect.poll(() => page.getByTestId("tool-range").textContent(), SERVICE).toBe("51–100 of 5000");
    expect(await rows.first().locator(".tool-name").textContent()).toBe("getThing50");
    expect(toolRequests.at(-1)?.searchParams.get("limit")).toBe("50");
    expect(toolRequests.at(-1)?.searchParams.get("token")).not.toBeNull();
    await page.getByRole("button", { name: "Previous page" }).click();
    await expect.poll(() => page.getByTestId("tool-range").textContent(), SERVICE).toBe("1–50 of 5000");
    await page.getByRole("button", { name: "Next page" }).click();
    await expect.poll(() => page.getByTestId("tool-range").textContent(), SERVICE).toBe("51–100 of 5000");
    await page.getByRole("searchbox", { name: "Filter tools" }).fill("thing number 4999");
    await expect.poll(() => rows.count(), SERVICE).toBe(1);
    expect(await page.getByTestId("tool-range").textContent()).toBe("1–1 of 1 matching (5000 tools)");
    // The filter went as `q` once typing paused (one request, not one per keystroke), from the first page.
    const filtered = toolRequests.filter((url) => url.searchParams.has("q"));
    expect(filtered.map((url) => [url.searchParams.get("q"), url.searchParams.get("limit")])).toEqual([
      ["thing number 4999", "50"],
    ]);
    expect(filtered[0]?.searchParams.has("token")).toBe(false);
    expect(toolRequests.every((url) => url.searchParams.get("limit") === "50")).toBe(true);

    // Edit opens under its row, in view, with focus in its first field.
    await page.getByRole("button", { name: "Edit getThing4999", exact: true }).click();
    const editor = page.getByRole("form", { name: "Tool getThing4999" });
    await editor.waitFor();
    expect(await editor.isVisible()).toBe(true);
    await expect.poll(() => page.evaluate<string>("document.activeElement?.value ?? ''")).toBe("getThing4999");
    const top = (await editor.boundingBox())?.y ?? -1;
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(DESKTOP.height);
    await page.screenshot({ path: join(shots, "provider-tool-editor-desktop.png") });
    // A field error goes once the field is fixed, and the "Bad Request" banner with it.
    await page.getByLabel("Tool name", { exact: true }).fill("not a valid name!");
    await page.getByRole("button", { name: "Save tool" }).click();
    const nameField = page.locator(".field", { has: page.getByLabel("Tool name", { exact: true }) });
    await expect.poll(() => nameField.locator(".field-error").textContent()).not.toBe("");
    await expect.poll(() => page.locator(".problem[data-status='400']").count()).toBe(1);
    await page.getByLabel("Tool name", { exact: true }).fill("getThingLast");
    await expect.poll(() => nameField.locator(".field-error").count()).toBe(0);
    expect(await page.locator(".problem[data-status='400']").count()).toBe(0);
    await page.getByRole("button", { name: "Save tool" }).click();
    await expect.poll(() => rows.first().textContent(), { timeout: 30_000 }).toContain("getThingLast");
    check([400]);
    await page.close();
  }, 300_000);

  it("tries a GitHub tool with an enum-array argument without typing JSON, with the console's own credential", async () => {
    const tool = github.tools.find((t) => t.name === "listMigrationsForOrg");
    expect(tool).toBeDefined();
    const created = await owner.api.post("/servers", {
      server: { name: "Migrations", providers: [{ id: github.id, tools: [{ id: tool?.id }] }] },
    });
    expectStatus(created, 201);
    const serverId = created.body.server.id;
    const { page, check } = await watchedPage(browser);
    await signIn(page, owner.token);
    await page.goto(`${svc.url}/console#/servers/${serverId}`);
    await page.getByRole("tab", { name: "Try a tool" }).click();
    // No token pasted: the console connects with a short-lived credential of its own.
    const picker = page.getByRole("combobox", { name: /^Tool \(1\)/ });
    await picker.waitFor({ timeout: 30_000 });
    const tokens = (await owner.api.get(`/servers/${serverId}/tokens`)).body.tokens;
    expect(tokens.map((t: { name: string }) => t.name)).toEqual(["console: try a tool"]);
    const expires = Date.parse(tokens[0].expiresAt) - Date.now();
    expect(expires).toBeGreaterThan(0);
    expect(expires).toBeLessThanOrEqual(15 * 60_000);

    await picker.fill("listMigrations");
    await page.getByRole("option", { name: /listMigrationsForOrg/ }).click();
    await page.getByLabel(/^org/).fill("acme");
    const exclude = page.getByRole("group", { name: /exclude/ });
    await exclude.locator("label.checkbox", { hasText: "repositories" }).click();
    expect(await exclude.getByRole("checkbox", { name: "repositories" }).isChecked()).toBe(true);
    await page.getByRole("button", { name: "Call listMigrationsForOrg" }).click();
    await expect.poll(() => page.getByTestId("call-status").textContent(), { timeout: 30_000 }).toBe("HTTP 200");
    expect(
      upstreamHits.some((h) => h.startsWith("GET /orgs/acme/migrations?") && h.includes("exclude=repositories")),
    ).toBe(true);
    expect(await page.getByTestId("call-latency").textContent()).toMatch(/^\d+ ms$/);
    await expect.poll(() => page.getByTestId("call-tokens").textContent(), { timeout: 30_000 }).toMatch(/^\d+ tokens$/);
    // Pretty-printed JSON, and the request that was sent.
    expect(await page.getByTestId("tool-result").first().textContent()).toContain("\n");
    const sent = JSON.parse((await page.getByTestId("call-request").textContent()) ?? "{}");
    expect(sent.method).toBe("tools/call");
    expect(JSON.stringify(sent.params.arguments)).toContain('"exclude":["repositories"]');
    await page.getByText("Request sent").click();
    await atBothWidths(page, "try-tool", { fullPage: false });

    // Leaving the page revokes the credential: no token stays behind.
    check();
    await page.close({ runBeforeUnload: true });
    await expect
      .poll(async () => (await owner.api.get(`/servers/${serverId}/tokens`)).body.tokens.length, { timeout: 15_000 })
      .toBe(0);
  }, 240_000);
});
