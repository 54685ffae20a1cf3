import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { atBothWidths, shots } from "./support/chromium.js";
import { expectStatus } from "./support/problems.js";
import {
  fieldOf,
  openPage,
  origin,
  owner,
  petStore,
  readClipboard,
  serversListed,
  signIn,
  svc,
  tick,
  upstreamHits,
  useConsoleWorld,
} from "./support/console-world.js";

// Issue 19, the web console in a real browser: Debian's chromium driven by playwright-core (as /docs is
// tested), against the real service (dev-auth mode) and a local upstream on loopback. Every request to
// another origin is refused (the console must work offline from what the service serves); the page may log
// no console error and no request may fail, except the API answers a test provokes on purpose (Chromium
// logs those as "Failed to load resource: … status of 409"). Screenshots land in
// apps/api/test-results/console/ (git-ignored).

useConsoleWorld();

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
    await page.getByRole("tab", { name: "Compose" }).click();
    await atBothWidths(page, "server");
    check([409]);
    await page.close();
  }, 300_000);
});
