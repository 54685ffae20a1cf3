import { randomBytes } from "node:crypto";
import { Storage } from "@mcpsm/domain/storage";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Layer, ManagedRuntime } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { plant } from "./support/planted-secrets.js";
import { testStorage } from "./support/test-storage.js";

// docs/api-rules.md §23 end to end with the SDK clients of both eras: a per-caller variable's first call sends
// the person to the service's form (URL elicitation, or the URL in text), the form stores the value, and the
// retried call sends that person's own value upstream; another caller is asked separately and never gets it;
// the default serves callers without a value; revoking a token or deleting a value takes it away; forms are
// single use, bound to their browser and same-site; the value shows in no answer, log, audit event, metric
// or export (the harness's leak detector watches every value entered).

type Era = "2025-11-25" | "2026-07-28";

/** The upstream: answers the X-Api-Key it was sent (so the test sees whose value arrived). */
let upstream: Loopback;
let upstreamBase = "";
const seenKeys: Array<string> = [];

const key = (who: string) => `key-of-${who}-${randomBytes(12).toString("hex")}`;

beforeAll(async () => {
  upstream = await listenOnLoopback((req, res) => {
    const sent = String(req.headers["x-api-key"] ?? "");
    seenKeys.push(sent);
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ ok: true, keyLength: sent.length, keyMatches: sent.slice(0, 12) }));
  });
  upstreamBase = `http://localhost:${upstream.port}`;
});

afterAll(async () => {
  await upstream?.close();
});

/** A provider on the upstream with a tool sending `${LOCALHOST_KEY}`, a per-caller variable, a server, tokens. */
const setUp = async (owner: Tenant, defaultValue = "") => {
  const provider = await owner.api.post("/providers", {
    provider: { name: `Keys ${randomBytes(4).toString("hex")}`, baseURL: upstreamBase },
  });
  expect(provider.status).toBe(201);
  const tool = await owner.api.post(`/providers/${provider.body.provider.id}/tools`, {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference, not a template
    tool: { name: "whoAmI", method: "GET", path: "/me", headers: [{ key: "X-Api-Key", value: "${LOCALHOST_KEY}" }] },
  });
  expect(tool.status).toBe(201);
  const variable = await owner.api.post("/variables", {
    variable: { type: "SECRET", name: "LOCALHOST_KEY", value: defaultValue, perCaller: true },
  });
  expect(variable.status, variable.text).toBe(201);
  expect(variable.body.variable).toMatchObject({ perCaller: true, value: "***" });
  const server = await owner.api.post("/servers", {
    server: { name: `Keys ${randomBytes(4).toString("hex")}`, providers: [{ id: provider.body.provider.id }] },
  });
  expect(server.status).toBe(201);
  const token = async () => {
    const made = await owner.api.post(`/servers/${server.body.server.id}/tokens`, { token: { name: "t" } });
    return made.body.token as { id: string; value: string };
  };
  return { serverId: server.body.server.id as string, variableId: variable.body.variable.id as string, token };
};

const connect = async (
  base: string,
  serverId: string,
  era: Era,
  token: string,
  onUrl?: (url: string) => Promise<void>,
) => {
  const client = new Client(
    { name: "caller-values-test", version: "1" },
    {
      capabilities: onUrl === undefined ? {} : { elicitation: { url: {} } },
      ...(era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" as const } } } : {}),
    },
  );
  if (onUrl !== undefined)
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as { mode?: string; url?: string };
      if (params.mode === "url" && typeof params.url === "string") await onUrl(params.url);
      return { action: "accept" };
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp/${serverId}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

const textOf = (result: unknown) =>
  ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n");

/** What a browser does with the form: GET (keeping its cookie), then POST the value with the form's token. */
const openForm = async (url: string) => {
  const page = await fetch(url);
  const html = await page.text();
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  return { page, html, cookie, csrf };
};

const submitForm = (
  url: string,
  form: { cookie: string; csrf: string },
  value: string,
  extra: Record<string, string> = {},
) =>
  fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: form.cookie, ...extra },
    body: new URLSearchParams({ csrf: form.csrf, value }).toString(),
  });

/** A person enters `value` in the form at `url`; the leak detector watches it from now on. */
const fillForm = async (url: string, value: string) => {
  plant(value, "caller value");
  const form = await openForm(url);
  expect(form.page.status, form.html).toBe(200);
  expect(form.page.headers.get("x-frame-options")).toBe("DENY");
  expect(form.page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  expect(form.html).toContain("LOCALHOST_KEY");
  expect(form.html).toContain('type="password"');
  const done = await submitForm(url, form, value);
  const html = await done.text();
  expect(done.status, html).toBe(200);
  expect(html).toContain("return to your client");
  return html;
};

const lastKey = () => seenKeys[seenKeys.length - 1];

describe.each(["2026-07-28", "2025-11-25"] as const)("per-caller values, %s", (era) => {
  let svc: TestService;
  let owner: Tenant;
  let ids: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] }, metrics: true });
    owner = await svc.tenant("keys");
    ids = await setUp(owner);
  });
  afterAll(async () => {
    await svc?.close();
  });

  it("first call elicits, the form stores, the retry sends the person's own value; a second caller is asked apart", async () => {
    const alice = key("alice");
    const bob = key("bob");
    const [aliceToken, bobToken] = [await ids.token(), await ids.token()];
    const urls: Array<string> = [];
    const aliceClient = await connect(svc.url, ids.serverId, era, aliceToken.value, async (url) => {
      urls.push(url);
      if (era === "2026-07-28") await fillForm(url, alice);
    });
    try {
      const before = seenKeys.length;
      if (era === "2026-07-28") {
        // The SDK answers the input request (the person fills the form meanwhile) and retries by itself.
        const result = await aliceClient.callTool({ name: "whoAmI", arguments: {} });
        expect(result.isError ?? false, textOf(result)).toBe(false);
      } else {
        const failure = await aliceClient.callTool({ name: "whoAmI", arguments: {} }).then(
          () => undefined,
          (error: unknown) =>
            error as { code?: number; data?: { elicitations?: Array<{ mode: string; url: string }> } },
        );
        expect(failure?.code).toBe(-32042);
        const url = failure?.data?.elicitations?.[0]?.url as string;
        urls.push(url);
        // Nothing reached the upstream without a value.
        expect(seenKeys.length).toBe(before);
        await fillForm(url, alice);
        const retried = await aliceClient.callTool({ name: "whoAmI", arguments: {} });
        expect(retried.isError ?? false, textOf(retried)).toBe(false);
      }
      expect(urls).toHaveLength(1);
      expect(urls[0]).toMatch(new RegExp(`^${svc.url}/credentials/[A-Za-z0-9]{43}$`));
      expect(lastKey()).toBe(alice);
      // Later calls use the stored value without asking again.
      await aliceClient.callTool({ name: "whoAmI", arguments: {} });
      expect(lastKey()).toBe(alice);
      expect(urls).toHaveLength(1);
    } finally {
      await aliceClient.close();
    }
    // Bob is asked for his own value and never gets Alice's.
    const bobClient = await connect(svc.url, ids.serverId, era, bobToken.value);
    try {
      const before = seenKeys.length;
      const asked = await bobClient.callTool({ name: "whoAmI", arguments: {} });
      expect(asked.isError).toBe(true);
      const url = /\/credentials\/[A-Za-z0-9]{43}/.exec(textOf(asked))?.[0];
      expect(url).toBeDefined();
      expect(seenKeys.length).toBe(before);
      expect(urls).not.toContain(`${svc.url}${url}`);
      await fillForm(`${svc.url}${url}`, bob);
      await bobClient.callTool({ name: "whoAmI", arguments: {} });
      expect(lastKey()).toBe(bob);
    } finally {
      await bobClient.close();
    }
    // The list names both principals, never a value.
    const listed = await owner.api.get(`/variables/${ids.variableId}/caller-values`);
    expect(listed.status).toBe(200);
    expect(listed.body.callerValues.map((v: { principal: string }) => v.principal).sort()).toEqual(
      [`server-token:${aliceToken.id}`, `server-token:${bobToken.id}`].sort(),
    );
    expect(Object.keys(listed.body.callerValues[0]).sort()).toEqual(["createdAt", "principal", "updatedAt"]);
    // Each stored value is an audit event naming fields, never values.
    const audit = await owner.api.get("/audit-events?operation=setCallerValue");
    expect(audit.status).toBe(200);
    expect(audit.body.auditEvents.length).toBeGreaterThanOrEqual(2);
    expect(audit.body.auditEvents[0]).toMatchObject({ target: { kind: "callerValue" } });
    expect(audit.body.auditEvents[0].fields).toContain("value");

    // Revoking Bob's token deletes his value; deleting Alice's value has her asked again.
    expect((await owner.api.delete(`/servers/${ids.serverId}/tokens/${bobToken.id}`)).status).toBe(204);
    const afterRevoke = await owner.api.get(`/variables/${ids.variableId}/caller-values`);
    expect(afterRevoke.body.callerValues.map((v: { principal: string }) => v.principal)).toEqual([
      `server-token:${aliceToken.id}`,
    ]);
    const principal = encodeURIComponent(`server-token:${aliceToken.id}`);
    expect((await owner.api.delete(`/variables/${ids.variableId}/caller-values/${principal}`)).status).toBe(204);
    expect((await owner.api.delete(`/variables/${ids.variableId}/caller-values/${principal}`)).status).toBe(404);
    const again = await connect(svc.url, ids.serverId, era, aliceToken.value);
    try {
      const asked = await again.callTool({ name: "whoAmI", arguments: {} });
      expect(asked.isError).toBe(true);
      expect(textOf(asked)).toContain("/credentials/");
    } finally {
      await again.close();
    }
    const deleted = await owner.api.get("/audit-events?operation=deleteCallerValue");
    expect(deleted.body.auditEvents).toHaveLength(1);
    // The metrics count prompts and stored values, with no tenant-written label.
    const metrics = await (await fetch(svc.metricsUrl as string)).text();
    expect(metrics).toMatch(/mcpsm_caller_value_prompts_total \d/);
    expect(metrics).toMatch(/mcpsm_caller_values_stored_total [2-9]/);
  });

  it("the default serves a caller without a value of its own", async () => {
    const other = await svc.tenant("defaults");
    const defaultValue = key("default");
    const setup = await setUp(other, defaultValue);
    const token = await setup.token();
    const client = await connect(svc.url, setup.serverId, era, token.value);
    try {
      const result = await client.callTool({ name: "whoAmI", arguments: {} });
      expect(result.isError ?? false, textOf(result)).toBe(false);
      expect(lastKey()).toBe(defaultValue);
    } finally {
      await client.close();
    }
    // The export carries perCaller, never a value.
    const exported = await other.api.get(`/servers/${setup.serverId}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body.variables).toEqual([{ name: "LOCALHOST_KEY", type: "SECRET", perCaller: true }]);
  });

  it("a tampered, replayed, cross-site or cookie-less form stores nothing", async () => {
    const token = await ids.token();
    const client = await connect(svc.url, ids.serverId, era, token.value);
    try {
      const asked = await client.callTool({ name: "whoAmI", arguments: {} });
      const url = `${svc.url}${/\/credentials\/[A-Za-z0-9]{43}/.exec(textOf(asked))?.[0]}`;
      const form = await openForm(url);
      const tampered = url.replace(/.$/, (c) => (c === "a" ? "b" : "a"));
      // The form's token is bound to its id: a tampered id fails that check first.
      expect((await submitForm(tampered, form, key("tampered"))).status).toBe(403);
      expect((await fetch(tampered)).status).toBe(400);
      expect((await submitForm(url, { cookie: "", csrf: form.csrf }, key("nocookie"))).status).toBe(403);
      expect((await submitForm(url, form, key("cross"), { Origin: "https://evil.example" })).status).toBe(403);
      expect((await submitForm(url, form, key("cross"), { "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
      expect((await submitForm(url, { ...form, csrf: "x".repeat(43) }, key("badcsrf"))).status).toBe(403);
      // A bad value shows the form again and spends nothing.
      expect((await submitForm(url, form, "line\nbreak")).status).toBe(400);
      const listed = await owner.api.get(`/variables/${ids.variableId}/caller-values`);
      expect(listed.body.callerValues.map((v: { principal: string }) => v.principal)).not.toContain(
        `server-token:${token.id}`,
      );
      const mine = key("mine");
      plant(mine, "caller value");
      expect((await submitForm(url, form, mine)).status).toBe(200);
      // Replayed: the form is spent; the stored value stays the first one.
      expect((await submitForm(url, form, key("replay"))).status).toBe(400);
      expect((await fetch(url)).status).toBe(400);
      await client.callTool({ name: "whoAmI", arguments: {} });
      expect(lastKey()).toBe(mine);
    } finally {
      await client.close();
    }
  });
});

describe("two instances on one database", () => {
  it("a form begun on one instance is filled on the other, and both send the value", async () => {
    const shared = ManagedRuntime.make(testStorage());
    const storage = await shared.runPromise(Storage);
    const encryptionKey = new Uint8Array(randomBytes(32));
    const options = {
      mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] },
      ownStorage: Layer.succeed(Storage, storage),
      encryptionKey,
    };
    const one = await startTestService(options);
    const two = await startTestService(options);
    try {
      const owner = await one.tenant("shared");
      const ids = await setUp(owner);
      const token = await ids.token();
      const first = await connect(one.url, ids.serverId, "2026-07-28", token.value);
      const asked = await first.callTool({ name: "whoAmI", arguments: {} });
      await first.close();
      const path = /\/credentials\/[A-Za-z0-9]{43}/.exec(textOf(asked))?.[0] as string;
      expect(path).toBeDefined();
      const value = key("shared");
      await fillForm(`${two.url}${path}`, value);
      for (const base of [one.url, two.url]) {
        const client = await connect(base, ids.serverId, "2025-11-25", token.value);
        await client.callTool({ name: "whoAmI", arguments: {} });
        await client.close();
        expect(lastKey()).toBe(value);
      }
      // Another caller on the other instance is asked apart.
      const other = await ids.token();
      const client = await connect(two.url, ids.serverId, "2026-07-28", other.value);
      const result = await client.callTool({ name: "whoAmI", arguments: {} });
      await client.close();
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(`${two.url}/credentials/`);
    } finally {
      await one.close();
      await two.close();
      await shared.dispose();
    }
  });
});
