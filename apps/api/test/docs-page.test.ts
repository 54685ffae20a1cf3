import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { openApiDocument } from "@mcpsm/openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserUnderTest, launchChromium } from "./support/chromium.js";
import { startTestService, type TestService } from "./support/harness.js";

// GET /docs in a real browser: Debian's chromium (installed by scripts/ensure-chromium.sh, never downloaded
// by npm) driven by playwright-core, with every request to another origin refused, so the page must work
// offline from what the service serves. The screenshot lands in apps/api/test-results/ (git-ignored).

const resultsDir = join(import.meta.dirname, "..", "test-results");
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

let svc: TestService;
let browser: BrowserUnderTest;
const consoleErrors: Array<string> = [];

beforeAll(async () => {
  svc = await startTestService();
  browser = await launchChromium({ allowedOrigins: [new URL(svc.url).origin] });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe("the API reference page in Chromium", () => {
  it("lists every operation of the document, loads nothing from elsewhere and breaks no CSP rule", async () => {
    const page = await browser.context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(String(error)));
    const response = await page.goto(`${svc.url}/docs`);
    expect(response?.status()).toBe(200);
    expect(await response?.headerValue("content-security-policy")).toContain("script-src 'self'");
    await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
    await expect.poll(() => page.locator(".opblock").count(), { timeout: 15_000 }).toBeGreaterThan(40);

    const doc = openApiDocument();
    const expected = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      )
      .sort();
    const shown = (
      await page.locator(".opblock").evaluateAll((blocks) =>
        blocks.map((block) => {
          const method = block.querySelector(".opblock-summary-method")?.textContent ?? "";
          const path = block.querySelector(".opblock-summary-path")?.getAttribute("data-path") ?? "";
          return `${method.trim().toUpperCase()} ${path}`;
        }),
      )
    ).sort();
    expect(shown).toEqual(expected);
    await expect.poll(() => page.getByText("MCP Server Management Service").count()).toBeGreaterThan(0);

    // One operation opened: its scope and request body are shown.
    await page.locator("#operations-Servers-createServer .opblock-summary").click();
    await page.locator("#operations-Servers-createServer .opblock-body").waitFor();
    expect(await page.locator("#operations-Servers-createServer").textContent()).toContain("server:create");

    await mkdir(resultsDir, { recursive: true });
    await page.screenshot({ path: join(resultsDir, "docs.png"), fullPage: false });
    await page.screenshot({ path: join(resultsDir, "docs-full.png"), fullPage: true });

    expect(browser.outside).toEqual([]);
    expect(consoleErrors.filter((e) => /Content.Security.Policy|Refused/i.test(e))).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 120_000);
});
