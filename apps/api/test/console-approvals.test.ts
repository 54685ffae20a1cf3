import { Client as McpClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { atBothWidths, type BrowserUnderTest, launchChromium, watchedPage } from "./support/chromium.js";
import { type EchoUpstream, startEchoUpstream } from "./support/echo-upstream.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { expectStatus } from "./support/problems.js";

// Issue 29 in the console, in Debian's Chromium against the real service (as console.test.ts): a server's
// Tool settings tab edits each tool's alias, description, pinned arguments and approval, and the server's
// approval policy; the Approvals page lists the calls waiting for a person and approves or denies them, and
// the caller's retry then runs (or is told it was denied). Screenshots land in apps/api/test-results/console/
// and are copied to docs/screenshots/ by hand when they change.

let svc: TestService;
let upstream: EchoUpstream;
let owner: Tenant;
let browser: BrowserUnderTest;
const ids = { server: "", tool: "", token: "" };

beforeAll(async () => {
  upstream = await startEchoUpstream();
  svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
  owner = await svc.tenant("console-approvals");
  const provider = await owner.api.post("/providers", { provider: { name: "Things", baseURL: upstream.baseURL } });
  expectStatus(provider, 201);
  const tool = await owner.api.post(`/providers/${provider.body.provider.id}/tools`, {
    tool: {
      name: "deleteThing",
      description: "Delete a thing",
      method: "DELETE",
      path: "/orgs/{org}/things",
      pathArgsJSONSchema: { type: "object", properties: { org: { type: "string" } }, required: ["org"] },
      queryArgsJSONSchema: { type: "object", properties: { id: { type: "string" } } },
    },
  });
  ids.tool = tool.body.tool.id;
  await owner.api.post(`/providers/${provider.body.provider.id}/tools`, {
    tool: { name: "listThings", method: "GET", path: "/things" },
  });
  const server = await owner.api.post("/servers", {
    server: { name: "Things for agents", providers: [{ id: provider.body.provider.id }] },
  });
  ids.server = server.body.server.id;
  ids.token = (await owner.api.post(`/servers/${ids.server}/tokens`, { token: { name: "agent" } })).body.token.value;
  browser = await launchChromium({ allowedOrigins: [new URL(svc.url).origin] });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await upstream?.close();
});

const signIn = async (page: Page) => {
  await page.goto(`${svc.url}/console`);
  await page.getByLabel("Access token").fill(owner.token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Servers" }).waitFor();
  await page.getByRole("table").waitFor();
};

const agent = async () => {
  const client = new McpClient({ name: "console-approvals-agent", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${ids.server}`), {
      requestInit: { headers: { Authorization: `Bearer ${ids.token}` } },
    }),
  );
  return client;
};
const textOf = (result: { content?: unknown }) => String((result.content as Array<{ text?: string }>)[0]?.text);

describe("tool settings and approvals in the console", () => {
  it("edits a tool's alias, description, pinned arguments and approval, and the approval policy", async () => {
    const { page, check } = await watchedPage(browser);
    await signIn(page);
    await page.goto(`${svc.url}/console#/servers/${ids.server}`);
    await page.getByRole("tab", { name: "Tool settings" }).click();
    await page.getByLabel("Approval policy").selectOption("DESTRUCTIVE");
    await page.getByRole("button", { name: "Save policy" }).click();
    await expect
      .poll(async () => (await owner.api.get(`/servers/${ids.server}`)).body.server.approvalPolicy)
      .toBe("DESTRUCTIVE");

    await page.getByText("Edit deleteThing").click();
    const form = page.getByRole("form", { name: "Settings of deleteThing" });
    // A pinned name the tool does not have: the service's 400 is shown, nothing is saved.
    await form.getByLabel("Pinned arguments (JSON)").fill('{"pathArgs": {"team": "x"}}');
    await form.getByRole("button", { name: "Save deleteThing" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("team");
    await form.getByLabel("Alias").fill("removeAcmeThing");
    await form.getByLabel("Description here").fill("Remove a thing of the Acme organisation");
    await form.getByLabel("Pinned arguments (JSON)").fill('{"pathArgs": {"org": "acme"}}');
    await form.getByLabel("Approval before a call").selectOption("ALWAYS");
    await form.getByRole("button", { name: "Save deleteThing" }).click();
    await form.getByRole("status").waitFor();
    const saved = await owner.api.get(`/servers/${ids.server}/tools/${ids.tool}`);
    expectStatus(saved, 200);
    expect(saved.body.tool.serverSettings).toEqual({
      alias: "removeAcmeThing",
      description: "Remove a thing of the Acme organisation",
      fixedArgs: { pathArgs: { org: "acme" } },
      approval: "ALWAYS",
    });
    // The overview follows the reloaded server.
    await expect.poll(() => page.getByRole("table").first().textContent()).toContain("removeAcmeThing");
    await atBothWidths(page, "console-tool-settings");
    check([400]);
  });

  it("lists the calls waiting for approval; Approve lets the retry run, Deny tells the caller", async () => {
    const client = await agent();
    const { page, check } = await watchedPage(browser);
    try {
      const call = { name: "removeAcmeThing", arguments: { queryArgs: { id: "t1" } } };
      expect((await client.callTool(call)).isError).toBe(true);
      const other = { name: "removeAcmeThing", arguments: { queryArgs: { id: "t2" } } };
      expect((await client.callTool(other)).isError).toBe(true);

      await signIn(page);
      await page.getByRole("link", { name: "Approvals" }).click();
      const table = page.getByTestId("approvals");
      await expect.poll(() => table.locator("tbody tr").count()).toBe(2);
      expect(await table.textContent()).toContain('"org": "acme"');
      await atBothWidths(page, "console-approvals");

      await table
        // The arguments cell, not a bare "t1": random ids and the principal are in the row too.
        .locator("tr", { hasText: '"id": "t1"' })
        .getByRole("button", { name: /^Approve/ })
        .click();
      await expect.poll(() => page.getByRole("status").textContent()).toContain("Approved the call of removeAcmeThing");
      await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
      const ran = await client.callTool(call);
      expect(ran.isError ?? false, textOf(ran)).toBe(false);
      expect(upstream.seen.at(-1)).toMatchObject({ method: "DELETE", url: "/orgs/acme/things?id=t1" });

      await table.locator("tr", { hasText: '"id": "t2"' }).getByRole("button", { name: /^Deny/ }).click();
      await page.getByText("No call is waiting for approval.").waitFor();
      const denied = await client.callTool(other);
      expect(textOf(denied)).toContain("denied");
      check();
    } finally {
      await client.close();
    }
  });
});
