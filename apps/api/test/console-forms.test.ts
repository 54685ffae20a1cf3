import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { shots } from "./support/chromium.js";
import { expectStatus } from "./support/problems.js";
import {
  fieldOf,
  openPage,
  owner,
  signIn,
  svc,
  upstreamHits,
  upstreamUrl,
  useConsoleWorld,
} from "./support/console-world.js";

// Issue 19, the web console's forms (validation, conflicts, paging, variables, import by URL) in a real
// browser, as console.test.ts: Debian's chromium driven by playwright-core against the real service (dev-auth
// mode) and a local upstream on loopback, no request to another origin, no console error or failed request
// but the answers a test provokes. Screenshots land in apps/api/test-results/console/ (git-ignored).

useConsoleWorld();

describe("the web console in Chromium", () => {
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
