import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserUnderTest, launchChromium, shots, watchedPage } from "./support/chromium.js";
import { serviceForFile } from "./support/file-service.js";
import { expectStatus } from "./support/problems.js";

// Issue 28, the console's response-filter editor on a tool (docs/api-rules.md §19), in Chromium against the
// real service: a filter typed into the tool's editor is previewed live on a pasted sample through
// shape-preview (the result and the tokens before and after), a filter that fails on the sample says so
// under the expression, and saving stores it on the tool. The screenshot is copied to docs/screenshots/.

const world = serviceForFile({ owner: "console-filter" });
let browser: BrowserUnderTest;

beforeAll(async () => {
  browser = await launchChromium({ allowedOrigins: [new URL(world.svc.url).origin] });
}, 600_000);

afterAll(() => browser?.close());

const SAMPLE = {
  data: Array.from({ length: 40 }, (_, i) => ({
    id: `cus_${i}`,
    name: `Customer ${i}`,
    email: `customer${i}@example.com`,
    address: { line1: `${i} Main Street`, city: "Berlin", country: "DE" },
    metadata: { plan: "pro", seats: i },
  })),
  has_more: true,
};

describe("the console's response-filter editor", () => {
  it("previews a filter live on a sample with the tokens before and after, then saves it on the tool", async () => {
    const provider = await world.owner.api.post("/providers", {
      provider: { name: "Billing", baseURL: "https://billing.example.com" },
    });
    expectStatus(provider, 201);
    const providerId = provider.body.provider.id;
    const tool = await world.owner.api.post(`/providers/${providerId}/tools`, {
      tool: { name: "listCustomers", method: "GET", path: "/customers" },
    });
    expectStatus(tool, 201);
    const toolId = tool.body.tool.id;

    const { page, check } = await watchedPage(browser);
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.goto(`${world.svc.url}/console`);
    await page.getByLabel("Access token").fill(world.owner.token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("table").waitFor();
    await page.goto(`${world.svc.url}/console#/providers/${providerId}`);
    await page.getByRole("button", { name: "Edit listCustomers", exact: true }).click();
    const editor = page.getByRole("group", { name: "Response filter" });
    await editor.waitFor();

    // The sample, pasted whole into its JSON editor: with no filter the preview is the sample itself.
    const sample = page.getByTestId("shape-sample");
    await sample.click();
    await page.keyboard.press("Control+a");
    await page.keyboard.insertText(JSON.stringify(SAMPLE));
    const tokens = page.getByTestId("shape-tokens");
    await expect.poll(() => tokens.textContent()).toMatch(/tokens \(±0%\)/);

    // A JMESPath filter: the preview follows as it is typed, far fewer tokens after than before.
    await editor.locator("label.radio", { hasText: "JMESPath" }).click();
    await page.getByLabel("Filter expression", { exact: true }).fill("data[*].{id: id, email: email}");
    await expect
      .poll(async () => JSON.parse((await page.getByTestId("shape-result").textContent()) ?? "null"))
      .toEqual(SAMPLE.data.map(({ id, email }) => ({ id, email })));
    const line = (await tokens.textContent()) ?? "";
    const [before, after] = [...line.matchAll(/([\d,]+) /g)].map((m) => Number(m[1]?.replaceAll(",", "")));
    expect(before).toBeGreaterThan(0);
    expect(after).toBeLessThan((before ?? 0) * 0.5);
    expect(line).toMatch(/−\d+%/);
    await page.screenshot({ path: join(shots, "response-filter-desktop.png"), fullPage: true });
    copyFileSync(
      join(shots, "response-filter-desktop.png"),
      join(import.meta.dirname, "..", "..", "..", "docs", "screenshots", "console-response-filter-desktop.png"),
    );

    // A filter that fails on this sample: the service's reason shows under the expression; the preview goes.
    await page.getByLabel("Filter expression", { exact: true }).fill("abs(data)");
    const field = page.locator(".field", { has: page.getByLabel("Filter expression", { exact: true }) });
    await expect.poll(() => field.locator(".field-error").textContent()).toContain("failed on this sample");
    expect(await page.getByTestId("shape-result").count()).toBe(0);

    // A jq filter, saved: the tool carries it. (Its preview is not awaited: jq runs in the sandbox under a
    // 100 ms wall-clock deadline, which a machine busy with other suites can spend before the filter runs.)
    await editor.locator("label.radio", { hasText: /^jq$/ }).click();
    await page.getByLabel("Filter expression", { exact: true }).fill(".data | map(.id)");
    await page.getByRole("button", { name: "Save tool" }).click();
    await expect
      .poll(
        async () => (await world.owner.api.get(`/providers/${providerId}/tools/${toolId}`)).body.tool.responseFilter,
      )
      .toEqual({ language: "jq", expression: ".data | map(.id)" });
    check([400]);
    await page.close();
  }, 180_000);
});
