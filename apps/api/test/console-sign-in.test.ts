import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CONSOLE_ACCOUNT,
  CONSOLE_AUDIENCE,
  CONSOLE_CLIENT_ID,
  type ConsoleAuthorizationServer,
  startConsoleAuthorizationServer,
} from "./support/console-authorization-server.js";
import { loadAppConfig } from "../src/config/app-config.js";
import { type BrowserUnderTest, launchChromium, shots } from "./support/chromium.js";
import { startTestService, type TestService } from "./support/harness.js";

// Issue 19, signing in to the console with the authorization code flow + PKCE, in Chromium, against a real
// authorization server (oidc-provider on loopback, see support/console-authorization-server.ts) that the
// service trusts for its management API (AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE) and names for the
// console (AUTH_URL, CONSOLE_OAUTH_CLIENT_ID). The browser may reach the service and that server only.

let as: ConsoleAuthorizationServer;
let svc: TestService;
let browser: BrowserUnderTest;

beforeAll(async () => {
  as = await startConsoleAuthorizationServer();
  svc = await startTestService({
    auth: { mode: "jwks", jwksUrl: as.jwksUrl, issuer: as.url, audience: CONSOLE_AUDIENCE, tenantClaim: "sub" },
    consoleSignIn: { authUrl: as.url, clientId: CONSOLE_CLIENT_ID },
  });
  await as.registerConsole(svc.url);
  browser = await launchChromium({ allowedOrigins: [new URL(svc.url).origin, new URL(as.url).origin] });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await as?.close();
});

describe("signing in to the console with the authorization code flow", () => {
  it("reads the console's client from CONSOLE_OAUTH_CLIENT_ID", async () => {
    const previous = process.env.CONSOLE_OAUTH_CLIENT_ID;
    process.env.CONSOLE_OAUTH_CLIENT_ID = "console-client";
    const loaded = await loadAppConfig().finally(() => {
      if (previous === undefined) delete process.env.CONSOLE_OAUTH_CLIENT_ID;
      else process.env.CONSOLE_OAUTH_CLIENT_ID = previous;
    });
    expect(loaded._tag === "Right" ? loaded.right.consoleClientId : loaded.left).toBe("console-client");
  });

  it("goes to the authorization server, comes back with a code, exchanges it with PKCE and uses the token", async () => {
    const page = await browser.context.newPage();
    const errors: Array<string> = [];
    const failed: Array<string> = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("requestfailed", (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));

    const response = await page.goto(`${svc.url}/console`);
    // The page may fetch from the authorization server's token endpoint, and from nowhere else.
    expect(await response?.headerValue("content-security-policy")).toContain(`connect-src 'self' ${as.url};`);
    await page.screenshot({ path: join(shots, "sign-in-oauth.png") });
    await page.getByRole("button", { name: "Sign in with the authorization server" }).click();
    await page
      .getByRole("heading", { name: "Servers" })
      .waitFor({ timeout: 30_000 })
      .catch((error: unknown) => {
        throw new Error(`${String(error)}; authorization server saw ${as.hits.join(", ")}; page ${page.url()}`);
      });
    expect(page.url()).toBe(`${svc.url}/console#/servers`);
    expect(await page.locator(".who").textContent()).toContain(CONSOLE_ACCOUNT);
    expect(as.hits).toContain("/oauth2/auth");
    expect(as.hits).toContain("/oauth2/token");

    // The token works for writes too: the tenant is the authorization server's account.
    await page.getByRole("link", { name: "New server" }).click();
    await page.getByLabel("Server name", { exact: true }).fill("Signed in");
    await page.getByRole("button", { name: "Create server" }).click();
    await page.getByRole("heading", { name: "Signed in" }).waitFor();
    await page.getByRole("tab", { name: "Audit" }).click();
    await expect.poll(() => page.getByTestId("audit").textContent()).toContain(CONSOLE_ACCOUNT);

    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
    expect(browser.outside).toEqual([]);
    await page.close();
  }, 180_000);
});
