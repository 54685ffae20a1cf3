import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { type BrowserUnderTest, launchChromium, watchedPage } from "./chromium.js";
import { startTestService, type Tenant, type TestService } from "./harness.js";
import { type Loopback, listenOnLoopback } from "./loopback.js";

// The world of the console tests: a local upstream, the service in dev-auth mode, Chromium, and the page
// helpers a test drives it with.

export let svc: TestService;
export let owner: Tenant;
export let upstream: Loopback | undefined;
export let upstreamUrl: string;
export const upstreamHits: Array<string> = [];
export let browser: BrowserUnderTest;
export let origin: string;

/** The description the journey imports: two operations of the local upstream. */
export const petStore = () =>
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

/** Starts the upstream, the service and Chromium before the file's tests, and stops them after. */
export const useConsoleWorld = () => {
  beforeAll(async () => {
    upstream = await listenOnLoopback((req, res) => {
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
    upstreamUrl = upstream.url;
    svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
    owner = await svc.tenant("console");
    origin = new URL(svc.url).origin;
    browser = await launchChromium({ allowedOrigins: [origin], clipboard: true });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await upstream?.close();
    await svc?.close();
  });
};

/** A page that records console errors and failed requests; `allowed` statuses are answers a test provokes. */
export const openPage = () => watchedPage(browser);

/** Opens /console and signs in with `token` (dev-auth mode: a pasted access token). */
export const signIn = async (page: Page, token: string) => {
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
export const serversListed = async (page: Page) => {
  await page.getByRole("heading", { name: "Servers" }).waitFor();
  await page.getByRole("table").waitFor();
};

/** The clipboard's text, as the page sees it (the test's types have no DOM, so the page runs a string). */
export const readClipboard = (page: Page) => page.evaluate<string>("navigator.clipboard.readText()");

/** Ticks or unticks a checkbox as a person does: a click on its label. */
export const tick = async (page: Page, name: RegExp, on: boolean) => {
  const box = page.getByRole("checkbox", { name });
  await page.locator("label.checkbox", { has: box }).click();
  await expect.poll(() => box.isChecked()).toBe(on);
};

export const fieldOf = (page: Page, label: string) =>
  page.locator(".field", { has: page.getByLabel(label, { exact: true }) });
