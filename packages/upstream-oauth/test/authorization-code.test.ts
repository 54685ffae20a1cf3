import { randomBytes } from "node:crypto";
import { findUpstreamConnection } from "@mcpsm/domain/mcp";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUpstreamOAuth } from "../src/index.js";
import { AUDIENCE, type AuthorizationServer, startAuthorizationServer } from "./support/authorization-server.js";
import { consentAgent, giveConsent } from "./support/consent-agent.js";
import {
  actorOf,
  connect,
  makeServices,
  manage,
  type RunningMcp,
  type Services,
  startMcp,
  textOf,
} from "./support/harness.js";
import { startUpstream, type Upstream } from "./support/upstream.js";

// The authorization code grant with PKCE end to end (docs/api-rules.md §13): an SDK client calls a tool of a
// provider with an authURL; the runtime answers with a URL elicitation in the client's era; the test follows
// the URL through the real authorization server (oidc-provider) and the service's callback as a person would;
// the retried call succeeds with a token for that person, verified by the upstream. Then refresh, a revoked
// refresh token, a wider scope, and one caller never getting another's token.

let as: AuthorizationServer;
let upstream: Upstream;
let services: Services;
let mcp: RunningMcp;
let clock = Date.now();
const stateKey = new Uint8Array(randomBytes(32));
const oauth = createUpstreamOAuth({
  now: () => clock,
  authorizationCode: { runner: makeServicesProxy(), stateKey, publicUrl: () => mcp.url },
});
const ids = { provider: "", server: "", admin: "", tokens: [] as Array<{ id: string; value: string }> };
const callback = () => `${mcp.url}/oauth2/callback`;
const grants = (type: string) => as.tokenRequests.get(type) ?? 0;

/** The services are made in beforeAll; the runner given to createUpstreamOAuth reaches them then. */
function makeServicesProxy() {
  return {
    runPromiseExit: ((effect: never) => services.runPromiseExit(effect)) as Services["runPromiseExit"],
  };
}

beforeAll(async () => {
  services = makeServices();
  mcp = await startMcp(services, { upstreamAuthorization: oauth }, () => oauth.pages);
  as = await startAuthorizationServer(callback());
  upstream = await startUpstream(as.issuer, AUDIENCE, as.publicJwk);
  const m = manage(services, actorOf("acme"));
  const provider = await m.provider({
    name: "Calendar",
    baseURL: upstream.baseURL,
    oauth2Config: {
      clientID: as.codeClient.id,
      clientSecret: as.codeClient.secret,
      authURL: as.authURL,
      tokenURL: as.tokenURL,
    },
  });
  ids.provider = provider.id;
  const list = await m.tool(provider.id, {
    name: "listItems",
    method: "GET",
    path: "/items",
    oauth2Scopes: ["items:read"],
  });
  const add = await m.tool(provider.id, {
    name: "addItem",
    method: "POST",
    path: "/items",
    oauth2Scopes: ["items:write"],
  });
  const admin = await m.tool(provider.id, { name: "admin", method: "GET", path: "/admin", oauth2Scopes: ["admin"] });
  ids.admin = admin.id;
  const server = await m.server({
    name: "Cal",
    providers: [{ id: provider.id, tools: [{ id: list.id }, { id: add.id }] }],
  });
  ids.server = server.id;
  ids.tokens = [await m.token(server.id), await m.token(server.id), await m.token(server.id)];
});

afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
  await as?.close();
  await services?.dispose();
});

const connectionOf = (tokenId: string) =>
  services.runPromise(
    findUpstreamConnection(ids.provider, "acme", { kind: "server-token", tokenId, serverId: ids.server }),
  );

describe("consent through URL elicitation (2026-07-28)", () => {
  let client: Client;
  const seenUrls: Array<string> = [];
  beforeAll(async () => {
    client = await connect(
      mcp.url,
      ids.server,
      "2026-07-28",
      ids.tokens[0]!.value,
      { elicitation: { url: {} } },
      async (url) => {
        seenUrls.push(url);
        const page = await giveConsent(url, "alice", callback());
        expect(page.status, page.html).toBe(200);
        expect(page.html).toContain("Connected to Calendar");
      },
    );
  });
  afterAll(async () => {
    await client?.close();
  });

  it("the first call asks for consent, the person consents, the retried call succeeds as that person", async () => {
    const before = grants("authorization_code");
    const result = await client.callTool({ name: "listItems", arguments: {} });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ ok: true, sub: "alice" });
    expect(seenUrls).toHaveLength(1);
    expect(seenUrls[0]).toMatch(new RegExp(`^${mcp.url}/oauth2/authorize\\?state=`));
    expect(grants("authorization_code")).toBe(before + 1);
    // The consent asked for the union of the provider's tools in this server.
    expect((await connectionOf(ids.tokens[0]!.id))?.row.scopes).toEqual(["items:read", "items:write"]);
  });

  it("later calls use the stored connection without asking again", async () => {
    const result = await client.callTool({ name: "addItem", arguments: {} });
    expect(result.structuredContent).toMatchObject({ ok: true, sub: "alice" });
    expect(seenUrls).toHaveLength(1);
  });

  it("an access token about to expire is refreshed, and the call succeeds", async () => {
    const before = grants("refresh_token");
    clock += 3600 * 1000;
    const result = await client.callTool({ name: "listItems", arguments: {} });
    expect(result.structuredContent).toMatchObject({ ok: true, sub: "alice" });
    expect(grants("refresh_token")).toBe(before + 1);
    expect(seenUrls).toHaveLength(1);
  });

  it("after an upstream 401 the token is refreshed once and the call retried", async () => {
    const current = (await connectionOf(ids.tokens[0]!.id))?.tokens.accessToken as string;
    upstream.rejected.add(current);
    const before = grants("refresh_token");
    const result = await client.callTool({ name: "listItems", arguments: {} });
    expect(result.structuredContent).toMatchObject({ ok: true, sub: "alice" });
    expect(grants("refresh_token")).toBe(before + 1);
  });

  it("a refresh token the authorization server revoked deletes the connection: consent again", async () => {
    const refresh = (await connectionOf(ids.tokens[0]!.id))?.tokens.refreshToken as string;
    const revoked = await fetch(`${as.issuer}/token/revocation`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Authorization: `Basic ${Buffer.from(`${as.codeClient.id}:${as.codeClient.secret}`).toString("base64")}`,
      },
      body: new URLSearchParams({ token: refresh, token_type_hint: "refresh_token" }).toString(),
    });
    expect(revoked.status).toBe(200);
    clock += 3600 * 1000;
    const result = await client.callTool({ name: "listItems", arguments: {} });
    expect(result.structuredContent).toMatchObject({ ok: true, sub: "alice" });
    expect(seenUrls).toHaveLength(2);
  });

  it("a tool needing a wider scope asks for consent for the union", async () => {
    await manage(services, actorOf("acme")).addTool(ids.server, ids.provider, ids.admin);
    const result = await client.callTool({ name: "admin", arguments: {} });
    expect(result.structuredContent).toMatchObject({ ok: true, sub: "alice" });
    expect(seenUrls).toHaveLength(3);
    expect((await connectionOf(ids.tokens[0]!.id))?.row.scopes).toEqual(["admin", "items:read", "items:write"]);
  });
});

describe("consent in the 2025-11-25 era and the text fallback", () => {
  it("a 2025 client that declared URL elicitation gets -32042 with the URL; after consent the retry succeeds", async () => {
    const client = await connect(mcp.url, ids.server, "2025-11-25", ids.tokens[1]!.value, { elicitation: { url: {} } });
    try {
      const failure = await client.callTool({ name: "listItems", arguments: {} }).then(
        () => undefined,
        (error: unknown) => error as { code?: number; data?: { elicitations?: Array<{ mode: string; url: string }> } },
      );
      expect(failure?.code).toBe(-32042);
      const url = failure?.data?.elicitations?.[0]?.url as string;
      expect(failure?.data?.elicitations?.[0]?.mode).toBe("url");
      const page = await giveConsent(url, "bob", callback());
      expect(page.status).toBe(200);
      const result = await client.callTool({ name: "listItems", arguments: {} });
      expect(result.structuredContent).toMatchObject({ ok: true, sub: "bob" });
    } finally {
      await client.close();
    }
  });

  it.each(["2025-11-25", "2026-07-28"] as const)(
    "a %s client without URL elicitation gets an isError result holding the URL",
    async (era) => {
      const m = manage(services, actorOf("acme"));
      const token = await m.token(ids.server);
      const client = await connect(mcp.url, ids.server, era, token.value);
      try {
        const result = await client.callTool({ name: "listItems", arguments: {} });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(new RegExp(`${mcp.url}/oauth2/authorize\\?state=`));
        expect(textOf(result)).toContain("provider 'Calendar'");
      } finally {
        await client.close();
      }
    },
  );
});

describe("a connection is its caller's alone", () => {
  it("a second caller of the same server never gets the first caller's token", async () => {
    const client = await connect(mcp.url, ids.server, "2026-07-28", ids.tokens[2]!.value);
    try {
      const seenBefore = upstream.seen.length;
      const result = await client.callTool({ name: "listItems", arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("/oauth2/authorize?state=");
      expect(upstream.seen.length).toBe(seenBefore);
    } finally {
      await client.close();
    }
  });

  it("revoking a server token deletes its connections", async () => {
    expect(await connectionOf(ids.tokens[1]!.id)).toBeDefined();
    await manage(services, actorOf("acme")).revoke(ids.server, ids.tokens[1]!.id);
    expect(await connectionOf(ids.tokens[1]!.id)).toBeUndefined();
  });

  it("the provider's connections are listed without any token", async () => {
    const listed = await manage(services, actorOf("acme")).connections(ids.provider);
    expect(listed.connections.map((c) => c.principal)).toEqual([`server-token:${ids.tokens[0]!.id}`]);
    expect(JSON.stringify(listed)).not.toMatch(/eyJ/);
  });
});

describe("the consent pages refuse bad states and store nothing", () => {
  const consentUrl = async () => {
    const m = manage(services, actorOf("acme"));
    const token = await m.token(ids.server);
    const client = await connect(mcp.url, ids.server, "2026-07-28", token.value);
    try {
      const result = await client.callTool({ name: "listItems", arguments: {} });
      const url = /(http\S+\/oauth2\/authorize\?state=\S+)/.exec(textOf(result))?.[1];
      if (url === undefined) throw new Error(`no consent URL in ${textOf(result)}`);
      return { url, token };
    } finally {
      await client.close();
    }
  };

  it("a replayed callback shows an error page and changes nothing", async () => {
    const { url, token } = await consentUrl();
    const agent = consentAgent(callback());
    const back = await agent.consent(url, "carol");
    expect((await agent.open(back)).status).toBe(200);
    const stored = await connectionOf(token.id);
    const replay = await agent.open(back);
    expect(replay.status).toBe(400);
    expect(replay.html).toContain("already used or has expired");
    expect(await connectionOf(token.id)).toEqual(stored);
  });

  it("a tampered state shows an error page and stores nothing", async () => {
    const { url, token } = await consentUrl();
    const agent = consentAgent(callback());
    const back = new URL(await agent.consent(url, "dave"));
    const state = back.searchParams.get("state") as string;
    back.searchParams.set("state", `${state.slice(0, 10)}${state[10] === "A" ? "B" : "A"}${state.slice(11)}`);
    const page = await agent.open(back.href);
    expect(page.status).toBe(400);
    expect(page.html).toContain("not a valid consent link");
    expect(await connectionOf(token.id)).toBeUndefined();
  });

  it("an expired state shows an error page and stores nothing", async () => {
    const { url, token } = await consentUrl();
    const agent = consentAgent(callback());
    const back = await agent.consent(url, "erin");
    clock += 11 * 60 * 1000;
    const page = await agent.open(back);
    expect(page.status).toBe(400);
    expect(page.html).toContain("expired");
    expect(await connectionOf(token.id)).toBeUndefined();
  });

  it("an error from the authorization server shows an error page and stores nothing", async () => {
    const { url, token } = await consentUrl();
    const state = new URL(url).searchParams.get("state") as string;
    const page = await consentAgent(callback()).open(
      `${callback()}?state=${encodeURIComponent(state)}&error=access_denied&error_description=declined`,
    );
    expect(page.status).toBe(400);
    expect(page.html).toContain("access_denied");
    expect(await connectionOf(token.id)).toBeUndefined();
  });
});
