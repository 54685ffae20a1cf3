import { randomBytes } from "node:crypto";
import { Storage } from "@mcpsm/domain/storage";
import { aesGcmCipher } from "@mcpsm/domain/use-cases";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import { makePostgresStorage } from "@mcpsm/storage-postgres";
import { createServerDatabase } from "@mcpsm/storage-postgres/testing";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Effect, Layer, ManagedRuntime } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AUDIENCE,
  type AuthorizationServer,
  startAuthorizationServer,
} from "../../../packages/upstream-oauth/test/support/authorization-server.js";
import { giveConsent } from "../../../packages/upstream-oauth/test/support/consent-agent.js";
import { startUpstream, type Upstream } from "../../../packages/upstream-oauth/test/support/upstream.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { plant } from "./support/planted-secrets.js";

// docs/api-rules.md §13 through the service, the authorization code half: consent pages, the connections
// routes, and two instances of the service over one store.

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
});

afterAll(async () => {
  await svc?.close();
});

/** Two storage layers over one store: one memory store, or two pools on one PostgreSQL database. */
const sharedStorage = async () => {
  if (process.env.API_TEST_STORAGE === "postgres") {
    const database = await createServerDatabase(process.env.TEST_DATABASE_URL as string);
    const a = await makePostgresStorage({ url: database.url, poolSize: 2 });
    await a.migrate();
    const b = await makePostgresStorage({ url: database.url, poolSize: 2 });
    const runtime = ManagedRuntime.make(
      Layer.scopedDiscard(
        Effect.addFinalizer(() =>
          Effect.promise(async () => {
            await a.close();
            await b.close();
            await database.dispose();
          }),
        ),
      ) as unknown as Layer.Layer<Storage>,
    );
    await runtime.runPromise(Effect.void);
    return { first: a.layer, second: b.layer, runtime };
  }
  const runtime = ManagedRuntime.make(MemoryStorageLive);
  const storage = await runtime.runPromise(Storage);
  return { first: Layer.succeed(Storage, storage), second: Layer.succeed(Storage, storage), runtime };
};

describe("authorization code through the service: consent pages, connections routes, two instances", () => {
  let second: TestService;
  let code: AuthorizationServer;
  let codeUpstream: Upstream;
  let store: ManagedRuntime.ManagedRuntime<Storage, unknown> | undefined;
  let first: TestService;
  let tenant: Tenant;
  const ids = { provider: "", server: "", tokens: [] as Array<{ id: string; value: string }> };
  const key = new Uint8Array(randomBytes(32));

  beforeAll(async () => {
    // Two instances of the service over one store (one PostgreSQL database in the PostgreSQL pass), with the
    // same encryption key, as behind a load balancer.
    const layers = await sharedStorage();
    store = layers.runtime;
    first = await startTestService({
      mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] },
      ownStorage: layers.first,
      encryptionKey: key,
    });
    second = await startTestService({
      mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] },
      ownStorage: layers.second,
      encryptionKey: key,
    });
    code = await startAuthorizationServer([`${first.url}/oauth2/callback`, `${second.url}/oauth2/callback`]);
    codeUpstream = await startUpstream(code.issuer, AUDIENCE, code.publicJwk);
    tenant = await first.tenant("code");
    const provider = await tenant.api.post("/providers", {
      provider: {
        name: "Calendar",
        baseURL: codeUpstream.baseURL,
        oauth2Config: {
          clientID: code.codeClient.id,
          clientSecret: code.codeClient.secret,
          authURL: code.authURL,
          tokenURL: code.tokenURL,
        },
      },
    });
    ids.provider = provider.body.provider.id;
    await tenant.api.post(`/providers/${ids.provider}/tools`, {
      tool: { name: "listItems", method: "GET", path: "/items", oauth2Scopes: ["items:read"] },
    });
    const resource = await tenant.api.post(`/providers/${ids.provider}/resources`, {
      resource: { name: "items", uri: `${codeUpstream.baseURL}/items`, mimeType: "application/json" },
    });
    const server = await tenant.api.post("/servers", {
      server: { name: "Cal", providers: [{ id: ids.provider }], resources: [{ id: resource.body.resource.id }] },
    });
    ids.server = server.body.server.id;
    for (let i = 0; i < 2; i++)
      ids.tokens.push(
        (await tenant.api.post(`/servers/${ids.server}/tokens`, { token: { name: `t${i}` } })).body.token,
      );
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await codeUpstream?.close();
    await code?.close();
    await store?.dispose();
  });

  const mcpClient = async (svc: TestService, token: string, onUrl?: (url: string) => Promise<void>) => {
    const client = new Client(
      { name: "api-test", version: "1" },
      {
        ...(onUrl === undefined ? {} : { capabilities: { elicitation: { url: {} } } }),
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      },
    );
    if (onUrl !== undefined)
      client.setRequestHandler("elicitation/create", async (request) => {
        await onUrl(String((request.params as { url?: string }).url));
        return { action: "accept" };
      });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${ids.server}`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  };

  it("consent on one instance; the connection serves its caller on the other, never another caller", async () => {
    const urls: Array<string> = [];
    const alice = await mcpClient(first, ids.tokens[0]!.value, async (url) => {
      urls.push(url);
      const page = await giveConsent(url, "alice", `${first.url}/oauth2/callback`);
      expect(page.status, page.html).toBe(200);
    });
    try {
      const result = await alice.callTool({ name: "listItems", arguments: {} });
      expect(result.structuredContent).toMatchObject({ ok: true, sub: "alice" });
      expect(urls).toHaveLength(1);
      for (const seen of codeUpstream.seen) plant(seen, "upstream access token");
      // The stored tokens are ciphertext; the leak detector watches their plaintext from now on.
      const rows = await first.inspect((tx) => tx.listUpstreamConnections(ids.provider, tenant.id));
      expect(rows).toHaveLength(1);
      const plain = JSON.parse(Effect.runSync(aesGcmCipher(key).decrypt(rows[0]!.tokensCipher))) as {
        a: string;
        r: string;
      };
      expect(rows[0]!.tokensCipher).not.toContain(plain.a);
      plant(plain.a, "upstream access token");
      plant(plain.r, "upstream refresh token");
    } finally {
      await alice.close();
    }
    // The same caller on the other instance: served from the shared store, no new consent.
    const aliceThere = await mcpClient(second, ids.tokens[0]!.value, async () => {
      throw new Error("no consent expected");
    });
    try {
      const result = await aliceThere.callTool({ name: "listItems", arguments: {} });
      expect(result.structuredContent).toMatchObject({ ok: true, sub: "alice" });
    } finally {
      await aliceThere.close();
    }
    // Another caller of the same server, on either instance, is asked for its own consent.
    for (const svc of [first, second]) {
      const seenBefore = codeUpstream.seen.length;
      const other = await mcpClient(svc, ids.tokens[1]!.value);
      try {
        const result = await other.callTool({ name: "listItems", arguments: {} });
        expect(result.isError).toBe(true);
        expect(String((result.content as Array<{ text?: string }>)[0]?.text)).toContain(
          `${svc.url}/oauth2/authorize?state=`,
        );
        expect(codeUpstream.seen.length).toBe(seenBefore);
      } finally {
        await other.close();
      }
    }
  });

  it("resources/read sends the caller's connection token; a caller without one is asked for consent", async () => {
    const uri = `${codeUpstream.baseURL}/items`;
    const alice = await mcpClient(second, ids.tokens[0]!.value, async () => {
      throw new Error("no consent expected");
    });
    try {
      const read = await alice.readResource({ uri });
      expect(JSON.parse(String((read.contents[0] as { text?: string }).text))).toMatchObject({
        ok: true,
        sub: "alice",
      });
    } finally {
      await alice.close();
    }
    // Another caller, whose client cannot open a URL: a JSON-RPC error naming the consent link, nothing read.
    const seenBefore = codeUpstream.seen.length;
    const other = await mcpClient(first, ids.tokens[1]!.value);
    try {
      const refused = await other.readResource({ uri }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(String((refused as Error | undefined)?.message)).toContain(`${first.url}/oauth2/authorize?state=`);
      expect(codeUpstream.seen.length).toBe(seenBefore);
    } finally {
      await other.close();
    }
    // With URL elicitation, the read asks for consent; once given, the same read answers with that caller's token.
    const urls: Array<string> = [];
    const bob = await mcpClient(first, ids.tokens[1]!.value, async (url) => {
      urls.push(url);
      const page = await giveConsent(url, "bob", `${first.url}/oauth2/callback`);
      expect(page.status, page.html).toBe(200);
    });
    try {
      const read = await bob.readResource({ uri });
      expect(urls).toHaveLength(1);
      expect(JSON.parse(String((read.contents[0] as { text?: string }).text))).toMatchObject({ ok: true, sub: "bob" });
      for (const seen of codeUpstream.seen) plant(seen, "upstream access token");
    } finally {
      await bob.close();
    }
    // Bob's connection is not the subject of the next test: drop it through the route.
    const listed = await tenant.api.get(`/providers/${ids.provider}/connections`);
    const bobs = listed.body.connections.find(
      (c: { principal: string }) => c.principal === `server-token:${ids.tokens[1]!.id}`,
    );
    expect((await tenant.api.delete(`/providers/${ids.provider}/connections/${bobs.id}`)).status).toBe(204);
  });

  it("GET /providers/{id}/connections lists the connection without a token; DELETE removes it (audited)", async () => {
    const listed = await tenant.api.get(`/providers/${ids.provider}/connections`);
    expect(listed.status).toBe(200);
    expect(listed.body.connections).toHaveLength(1);
    const connection = listed.body.connections[0];
    expect(connection).toMatchObject({
      principal: `server-token:${ids.tokens[0]!.id}`,
      scopes: ["items:read"],
      refreshable: true,
    });
    expect(Object.keys(connection).sort()).toEqual([
      "createdAt",
      "expiresAt",
      "id",
      "principal",
      "refreshable",
      "scopes",
    ]);
    // Its creation (the consent callback) was audited once, in the caller's name; the refreshes record nothing.
    const made = await tenant.api.get("/audit-events?operation=createProviderConnection");
    expect(made.status).toBe(200);
    const alices = made.body.auditEvents.filter(
      (event: { target: { id: string } }) => event.target.id === connection.id,
    );
    expect(alices).toHaveLength(1);
    expect(alices[0]).toMatchObject({
      actor: { sub: `server-token:${ids.tokens[0]!.id}`, clientId: "" },
      operation: "createProviderConnection",
      target: { kind: "connection", id: connection.id },
    });
    expect(alices[0].requestId).not.toBe("");
    const other = await first.tenant("other");
    expect((await other.api.get(`/providers/${ids.provider}/connections`)).status).toBe(404);
    expect((await other.api.delete(`/providers/${ids.provider}/connections/${connection.id}`)).status).toBe(404);
    const readOnly = first.client(await first.token(tenant.id, ["provider:read"]));
    expect((await readOnly.delete(`/providers/${ids.provider}/connections/${connection.id}`)).status).toBe(403);
    const deleted = await tenant.api.delete(`/providers/${ids.provider}/connections/${connection.id}`);
    expect(deleted.status).toBe(204);
    expect((await tenant.api.get(`/providers/${ids.provider}/connections`)).body.connections).toEqual([]);
    expect((await tenant.api.delete(`/providers/${ids.provider}/connections/${connection.id}`)).status).toBe(404);
    const audit = await tenant.api.get("/audit-events?limit=5");
    expect(audit.body.auditEvents[0]).toMatchObject({
      operation: "deleteProviderConnection",
      target: { kind: "connection", id: connection.id },
    });
    // Its caller is asked for consent again.
    const alice = await mcpClient(second, ids.tokens[0]!.value);
    try {
      const result = await alice.callTool({ name: "listItems", arguments: {} });
      expect(result.isError).toBe(true);
    } finally {
      await alice.close();
    }
  });

  it("a tampered or replayed state shows an HTML error page", async () => {
    const bad = await fetch(`${first.url}/oauth2/callback?state=nope.nope&code=x`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toContain("text/html");
    expect(await bad.text()).toContain("not a valid consent link");
    const authorize = await fetch(`${first.url}/oauth2/authorize?state=tampered`, { redirect: "manual" });
    expect(authorize.status).toBe(400);
  });
});
