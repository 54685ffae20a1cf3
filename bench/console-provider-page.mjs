// The console's provider page at 5,000 tools (issue 31's goal: renders in ≤ 1 s and scrolls): the real
// service (in-memory store, dev auth), a provider imported from a description of 5,000 operations with HTML
// descriptions (the import turns them into Markdown), and Debian's Chromium (playwright-core, the flags the
// browser tests use) opening the page ROUNDS times. Measured in the page: from navigation start to the
// table's 50 rows (before stop 27 the provider's JSON fetched, parsed and rendered; since, the first page of
// GET /providers/{id}/tools), the next page, a filter (sent to the service after a 200 ms pause), and a
// scroll to the bottom and back (two animation frames each). `apps/api/test/console-scale.test.ts` asserts
// the structure (50 rows, fixed layout, actions on screen); this file measures the time.
//   pnpm -s turbo run build && node bench/console-provider-page.mjs
import { DEFAULT_QUOTAS } from "@mcpsm/domain/use-cases";
import { chromium } from "playwright-core";
import { percentile, startLocalService } from "./lib/local-service.mjs";

const TOOLS = 5_000;
const ROUNDS = 7;

const description = () => {
  const paths = {};
  for (let i = 0; i < TOOLS; i++)
    paths[`/things/${i}/{thingId}`] = {
      get: {
        operationId: `getThing${i}`,
        summary: `Thing number ${i}`,
        description: `<p>Reads <strong>thing ${i}</strong> of the warehouse, with its <a href="https://example.com/t/${i}">history</a> and a longer sentence that wraps in the description column.</p>`,
        parameters: [{ name: "thingId", in: "path", required: true, schema: { type: "string" } }],
        responses: { 200: { description: "the thing" } },
      },
    };
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Warehouse", version: "1" },
    paths,
    servers: [{ url: "https://w.example.com" }],
  });
};

const service = await startLocalService({ quotas: { ...DEFAULT_QUOTAS, toolsPerProvider: TOOLS } });
const { provider } = await service.api("/providers/import", { import: { document: description(), dryRun: false } });
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page.goto(`${service.url}/console`);
await page.evaluate((token) => sessionStorage.setItem("mcpsm.console.token", token), service.token);

const rowsAre = (n) =>
  page.waitForFunction((count) => document.querySelectorAll(".tool-table tbody tr").length === count, n);
const frames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
/** Wall time of `work` in the page's clock (the driver's round trips included). */
const timed = async (work) => {
  const start = await page.evaluate(() => performance.now());
  await work();
  return (await page.evaluate(() => performance.now())) - start;
};
// The renderer's CPU time (Chrome's ProcessTime metric): what the page costs, whatever else runs on the machine.
const cdp = await page.context().newCDPSession(page);
await cdp.send("Performance.enable");
const cpuSeconds = async () =>
  (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "ProcessTime")?.value ?? 0;
const results = {
  render: [],
  answered: [],
  toolPage: [],
  rowsData: [],
  renderCpu: [],
  nextPage: [],
  filter: [],
  scroll: [],
};
// The baseline: the same reload on the provider list (the console's scripts, one small answer).
const baselineCpu = [];
for (let round = 0; round < ROUNDS; round++) {
  await page.goto(`${service.url}/console#/providers`);
  const cpuBefore = await cpuSeconds();
  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 1);
  await frames();
  baselineCpu.push(((await cpuSeconds()) - cpuBefore) * 1000);
}
for (let round = 0; round < ROUNDS; round++) {
  await page.goto(`${service.url}/console#/providers/${provider.id}`);
  const cpuBefore = await cpuSeconds();
  await page.reload();
  await rowsAre(50);
  await frames();
  const painted = await page.evaluate(() => performance.now());
  results.renderCpu.push(((await cpuSeconds()) - cpuBefore) * 1000);
  results.render.push(painted);
  // When the provider's JSON (every tool with its schemas) had fully arrived, and (since stop 27) the first
  // page of tools the table fetches itself: whichever the rows wait for, the rest is the page's work.
  const [answered, toolPage] = await page.evaluate((id) => {
    const entries = performance.getEntriesByType("resource");
    return [
      entries.find((e) => e.name.endsWith(`/providers/${id}`))?.responseEnd ?? 0,
      entries.find((e) => e.name.includes(`/providers/${id}/tools?`))?.responseEnd,
    ];
  }, provider.id);
  results.answered.push(answered);
  if (toolPage !== undefined) results.toolPage.push(toolPage);
  results.rowsData.push(toolPage ?? answered);
  // Timed inside the page (one evaluate each), so the driver's round trips are not counted.
  results.nextPage.push(
    await page.evaluate(async () => {
      const settled = async (done) => {
        while (!done()) await new Promise((r) => requestAnimationFrame(r));
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      };
      const start = performance.now();
      [...document.querySelectorAll("button")].find((b) => b.textContent === "Next page").click();
      await settled(() => document.querySelector("[data-testid=tool-range]")?.textContent?.startsWith("51–100"));
      return performance.now() - start;
    }),
  );
  results.filter.push(
    await page.evaluate(async () => {
      const settled = async (done) => {
        while (!done()) await new Promise((r) => requestAnimationFrame(r));
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      };
      const input = document.querySelector("input[type=search]");
      const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
      const start = performance.now();
      setValue.call(input, "thing number 4999");
      input.dispatchEvent(new Event("input", { bubbles: true }));
      await settled(() => document.querySelectorAll(".tool-table tbody tr").length === 1);
      return performance.now() - start;
    }),
  );
  await page.getByRole("searchbox", { name: "Filter tools" }).fill("");
  await rowsAre(50);
  results.scroll.push(
    await timed(async () => {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await frames();
      await page.evaluate(() => window.scrollTo(0, 0));
      await frames();
    }),
  );
}
const height = await page.evaluate(() => document.documentElement.scrollHeight);
await browser.close();
await service.close();
const row = (name, values) =>
  console.log(
    values.length === 0
      ? `| ${name} | — | — |`
      : `| ${name} | ${percentile(values, 50).toFixed(0)} | ${Math.max(...values).toFixed(0)} |`,
  );
console.log(`provider page, ${TOOLS} tools, ${ROUNDS} rounds (page height ${height} px)`);
console.log("| step | median ms | max ms |\n|---|---|---|");
row("baseline: renderer CPU to load the provider list (1 provider)", baselineCpu);
row("renderer CPU for the whole load and render", results.renderCpu);
row("render (navigation start → 50 rows painted)", results.render);
row("the provider's JSON fully received", results.answered);
row("the first tool page received (GET /providers/{id}/tools?limit=50)", results.toolPage);
row(
  "the rows' data received → 50 rows painted",
  results.render.map((r, i) => r - results.rowsData[i]),
);
row("next page", results.nextPage);
row("filter to one tool", results.filter);
row("scroll to the bottom and back (driver round trips included)", results.scroll);
