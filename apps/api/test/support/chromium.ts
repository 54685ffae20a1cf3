import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

// Debian's Chromium driven by playwright-core, as the browser tests use it (installed by
// scripts/ensure-chromium.sh, never downloaded by playwright). The machines' network is closed, so the
// background-networking flags are needed, and every request to another origin is refused and recorded:
// pages must work from what the service serves.

const CHROMIUM = "/usr/bin/chromium";
const repoRoot = join(import.meta.dirname, "..", "..", "..", "..");

/** Where the console tests' screenshots land (git-ignored). */
export const shots = join(import.meta.dirname, "..", "..", "test-results", "console");

/** The widths the console is checked at: a desktop (every page's default) and a phone. */
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * Screenshots of `page` as it is at desktop and phone widths (`<name>-desktop.png`, `<name>-phone.png`, whole
 * pages unless `fullPage` is false); on the phone the page must not scroll sideways. Leaves the desktop width.
 */
export const atBothWidths = async (page: Page, name: string, options: { readonly fullPage?: boolean } = {}) => {
  const fullPage = options.fullPage ?? true;
  await page.screenshot({ path: join(shots, `${name}-desktop.png`), fullPage });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(shots, `${name}-phone.png`), fullPage });
  const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
  expect(overflow, `${name} scrolls sideways on a phone`).toBeLessThanOrEqual(0);
  await page.setViewportSize(DESKTOP);
};

/** A persistent browser context and the requests it refused; `close` also removes its profile folder. */
export interface BrowserUnderTest {
  readonly context: BrowserContext;
  /** Every URL the page asked for outside `allowedOrigins` (refused). */
  readonly outside: Array<string>;
  readonly close: () => Promise<void>;
}

/**
 * Starts headless Chromium with a fresh profile that may reach `allowedOrigins` (and `data:` URLs) only;
 * `clipboard` grants clipboard access on the first origin. Installs Chromium first when it is missing.
 */
export const launchChromium = async (options: {
  readonly allowedOrigins: ReadonlyArray<string>;
  readonly clipboard?: boolean;
}): Promise<BrowserUnderTest> => {
  if (!existsSync(CHROMIUM))
    execFileSync("bash", [join(repoRoot, "scripts", "ensure-chromium.sh")], { stdio: "inherit", timeout: 540_000 });
  const userDataDir = await mkdtemp(join(tmpdir(), "mcpsm-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: DESKTOP,
  });
  const [first] = options.allowedOrigins;
  if (options.clipboard === true && first !== undefined)
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: first });
  const outside: Array<string> = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (options.allowedOrigins.some((o) => url.startsWith(`${o}/`)) || url.startsWith("data:")) return route.continue();
    outside.push(url);
    return route.abort();
  });
  await mkdir(shots, { recursive: true });
  return {
    context,
    outside,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
};

/**
 * A new page that records console errors, CSP violations and failed requests. `check(allowedStatuses)`
 * expects none of them, nor any refused request, apart from Chromium's lines for the 4xx answers a test
 * provokes on purpose.
 */
export const watchedPage = async (browser: BrowserUnderTest) => {
  const page = await browser.context.newPage();
  // A CSP violation names its source, so a failure says which script broke the policy.
  await page.addInitScript(
    'document.addEventListener("securitypolicyviolation", (e) => console.error(["CSP", e.violatedDirective, e.sourceFile, e.lineNumber, e.columnNumber, e.sample].join(" ")));',
  );
  const errors: Array<string> = [];
  const failed: Array<string> = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("requestfailed", (r) => failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  const check = (allowedStatuses: ReadonlyArray<number> = []) => {
    const unexpected = errors.filter(
      (e) =>
        !allowedStatuses.some((s) =>
          e.startsWith(`Failed to load resource: the server responded with a status of ${s}`),
        ),
    );
    expect(unexpected).toEqual([]);
    expect(failed).toEqual([]);
    expect(browser.outside).toEqual([]);
  };
  return { page, check };
};
