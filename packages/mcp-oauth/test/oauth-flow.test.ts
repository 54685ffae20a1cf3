import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ALL_SCOPES } from "@mcpsm/domain";
import { type OAuthServerRecordRow, oauthServerRecordId, Storage } from "@mcpsm/domain/storage";
import { revokeServerToken, createServer as createMcpServerRecord, createServerToken } from "@mcpsm/domain/use-cases";
import { createMcpRuntime, defaultMcpSettings, type McpRuntime } from "@mcpsm/mcp-runtime";
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { userAgent } from "@mcpsm/upstream-http/testing";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { services, run, signingSecret, asOptions } from "./support/oauth-instances.js";
import { CALLBACK, consent, MemoryOAuthClient } from "./support/oauth-user-agent.js";
import { deriveSigningKey, createMcpAuthorizationServer, type McpAuthorizationServer } from "../src/index.js";

// Issue 16: an OAuth-only MCP client (the SDK client's own OAuth flow) connects to the service with the
// service as its authorization server: discovery from the 401, RFC 8414 metadata, RFC 7591 registration,
// authorization code + PKCE S256 with the server's URL as resource (RFC 8707), consent by pasting a server
// token, a token whose audience is that server, and a refresh. The "browser" is fetch with a cookie jar.

let http: Server;
/** What the HTTP server routes to: swapped to stand for another instance, or a restart. */
let handlers: { as: McpAuthorizationServer; mcp: McpRuntime } | undefined;
let base: string;
let runtime: McpRuntime;
let as: McpAuthorizationServer;
let serverId: string;
let otherServerId: string;
let serverToken: string;

beforeAll(async () => {
  const actor = { tenant: "owner", scopes: new Set(ALL_SCOPES) };
  serverId = (await run<{ id: string }>(createMcpServerRecord(actor, { server: { name: "OAuth server" } }))).id;
  otherServerId = (await run<{ id: string }>(createMcpServerRecord(actor, { server: { name: "Another" } }))).id;
  serverToken = (await run<{ value: string }>(createServerToken(actor, { serverId, token: { name: "consent" } })))
    .value;
  http = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (handlers?.as.matches(path)) void handlers.as.handleNode(req, res);
    else void handlers?.mcp.handleNode(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  as = await createMcpAuthorizationServer(asOptions(base));
  runtime = createMcpRuntime({
    runner: services,
    settings: defaultMcpSettings(),
    listenUrl: base,
    // The instance answering now (handlers.as) checks the token, as the service does.
    oauth: { verify: (token, resource) => (handlers?.as ?? as).verifier.verify(token, resource) },
    defaultAuthorizationServers: [as.issuer],
    oauthScopes: ["mcp"],
    logger: { warn: () => {}, error: (fields, message) => console.error(message, fields) },
  });
  handlers = { as, mcp: runtime };
});

afterAll(async () => {
  await runtime?.close();
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  await services.dispose();
});

const connectWith = async (provider: OAuthClientProvider, era: "2025-11-25" | "2026-07-28" = "2025-11-25") => {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/${serverId}`), { authProvider: provider });
  const client = new Client(
    { name: "oauth-test", version: "1" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(transport);
  return client;
};

describe("the service as its MCP endpoints' authorization server", () => {
  it("publishes RFC 8414 metadata: registration, code + PKCE S256, refresh tokens, resource indicators", async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const metadata = (await res.json()) as { grant_types_supported: Array<string> };
    expect(metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
    });
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    const prm = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp/${serverId}`)).json()) as {
      authorization_servers: Array<string>;
    };
    expect(prm.authorization_servers).toEqual([base]);
  });

  it("the SDK client registers, gets consent with a server token, calls the server and refreshes", async () => {
    const provider = new MemoryOAuthClient();
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/${serverId}`), { authProvider: provider });
    const first = new Client({ name: "oauth-test", version: "1" });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.info?.client_id).toBeDefined();
    const url = provider.authorizationUrl;
    expect(url?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url?.searchParams.get("resource")).toBe(`${base}/mcp/${serverId}`);
    const callback = await consent(url as URL, serverToken);
    const params = new URL(callback.url).searchParams;
    expect(params.get("code")).toBeTruthy();
    await transport.finishAuth(params);
    const access = provider.saved?.access_token ?? "";
    expect(provider.saved?.refresh_token).toBeTruthy();
    const claims = JSON.parse(Buffer.from(access.split(".")[1] ?? "", "base64url").toString());
    expect(claims).toMatchObject({ iss: base, aud: `${base}/mcp/${serverId}`, sub: "owner", scope: "mcp" });

    for (const era of ["2025-11-25", "2026-07-28"] as const) {
      const client = await connectWith(provider, era);
      expect(client.getServerVersion()?.name).toBe("OAuth server");
      expect((await client.listTools()).tools).toEqual([]);
      await client.close();
    }

    // The token is bound to its server: another server of the same owner refuses it (audience).
    const elsewhere = await fetch(`${base}/mcp/${otherServerId}`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${access}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(elsewhere.status).toBe(401);

    // A refresh (what the client does when its access token expires) yields a new working token.
    const refreshed = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: provider.saved?.refresh_token ?? "",
        client_id: provider.info?.client_id ?? "",
      }).toString(),
    });
    expect(refreshed.status).toBe(200);
    const renewed = (await refreshed.json()) as { access_token: string; token_type: string };
    expect(renewed.access_token).not.toBe(access);
    provider.saved = { ...renewed };
    const again = await connectWith(provider);
    expect(again.getServerVersion()?.name).toBe("OAuth server");
    await again.close();
  });

  it("refuses consent with a token of another server, and refuses a resource that is not an MCP server", async () => {
    const other = await run<{ value: string }>(
      createServerToken(
        { tenant: "owner", scopes: new Set(ALL_SCOPES) },
        { serverId: otherServerId, token: { name: "x" } },
      ),
    );
    const provider = new MemoryOAuthClient();
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/${serverId}`), { authProvider: provider });
    await expect(new Client({ name: "t", version: "1" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const refused = await consent(provider.authorizationUrl as URL, other.value);
    expect(refused.res.status).toBe(401);
    expect(await refused.res.text()).toContain("not a valid server token of this server");

    const wrongResource = new URL(provider.authorizationUrl as URL);
    wrongResource.searchParams.set("resource", "https://elsewhere.example/api");
    const page = await userAgent(CALLBACK).follow(wrongResource.href);
    expect(
      page.url.startsWith("http://127.0.0.1:1/callback")
        ? new URL(page.url).searchParams.get("error")
        : page.res.status,
    ).toBe("invalid_target");
  });
});

/** The SDK client's whole flow with consent by `token`: the client, with its registration and tokens. */
const authorize = async (token: string) => {
  const provider = new MemoryOAuthClient();
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/${serverId}`), { authProvider: provider });
  await expect(new Client({ name: "t", version: "1" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  const callback = await consent(provider.authorizationUrl as URL, token);
  await transport.finishAuth(new URL(callback.url).searchParams);
  expect(provider.saved?.refresh_token).toBeTruthy();
  return provider;
};

const refresh = (provider: MemoryOAuthClient) =>
  fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: provider.saved?.refresh_token ?? "",
      client_id: provider.info?.client_id ?? "",
    }).toString(),
  });

const resource = () => `${base}/mcp/${serverId}`;

describe("state shared through the store, and a key derived from the encryption key", () => {
  it("another instance on the same store accepts the tokens and refreshes them; so does a restarted one", async () => {
    const provider = await authorize(serverToken);
    // At rest: the refresh token is found only by its digest, and no stored row holds its value.
    const refreshToken = provider.saved?.refresh_token ?? "";
    const stored = (id: string) =>
      run<OAuthServerRecordRow | undefined>(
        Effect.flatMap(Storage, (storage) => storage.read((tx) => tx.findOAuthServerRecord(id))),
      );
    expect(await stored(`RefreshToken:${refreshToken}`)).toBeUndefined();
    const row = await stored(oauthServerRecordId("RefreshToken", refreshToken));
    expect(row?.grantId).toBeTruthy();
    expect(JSON.stringify(row)).not.toContain(refreshToken);
    const first = handlers as NonNullable<typeof handlers>;
    try {
      // Instance B: its own oidc-provider (own caches, nothing in memory from A), same store and secrets.
      handlers = { as: await createMcpAuthorizationServer(asOptions(base)), mcp: runtime };
      expect(await handlers.as.verifier.verify(provider.saved?.access_token ?? "", resource())).toMatchObject({
        tenant: "owner",
        scopes: ["mcp"],
      });
      const client = await connectWith(provider);
      expect(client.getServerVersion()?.name).toBe("OAuth server");
      await client.close();
      const renewed = await refresh(provider);
      expect(renewed.status).toBe(200);
      provider.saved = { ...((await renewed.json()) as { access_token: string; token_type: string }) };

      // A restart: yet another instance, built from nothing but the store and the secrets.
      handlers = { as: await createMcpAuthorizationServer(asOptions(base)), mcp: runtime };
      const again = await connectWith(provider, "2026-07-28");
      expect(again.getServerVersion()?.name).toBe("OAuth server");
      await again.close();
      expect((await refresh(provider)).status).toBe(200);
    } finally {
      handlers = first;
    }
  });

  it("the signing key is the same for the same secret, and tokens of a previous key stay valid", async () => {
    const secret = new Uint8Array(randomBytes(32));
    const key = await deriveSigningKey(secret);
    expect(await deriveSigningKey(secret)).toEqual(key);
    expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256" });
    expect((await deriveSigningKey(new Uint8Array(randomBytes(32)))).kid).not.toBe(key.kid);

    const provider = await authorize(serverToken);
    const access = provider.saved?.access_token ?? "";
    // ENCRYPTION_KEY rotated: the new key signs, the old one (ENCRYPTION_KEYS_OLD) still verifies.
    const rotated = await createMcpAuthorizationServer({
      ...asOptions(base),
      signingSecrets: [new Uint8Array(randomBytes(32)), signingSecret],
    });
    expect(await rotated.verifier.verify(access, resource())).toMatchObject({ tenant: "owner" });
    const retired = await createMcpAuthorizationServer({
      ...asOptions(base),
      signingSecrets: [new Uint8Array(randomBytes(32))],
    });
    expect(await retired.verifier.verify(access, resource())).toMatchObject({ _tag: "Unauthenticated" });
    const jwks = (await (await fetch(`${base}/oauth/jwks`)).json()) as { keys: Array<{ kid: string; d?: string }> };
    const published = jwks.keys.map((k) => k.kid);
    expect(published).toContain((await deriveSigningKey(signingSecret)).kid);
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
  });
});

describe("a confidential client (RFC 7591 registration with a client secret)", () => {
  it("keeps its secret encrypted at rest, and a restarted instance still authenticates it", async () => {
    const registered = await fetch(`${base}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        client_name: "confidential",
        redirect_uris: ["https://client.example/callback"],
        token_endpoint_auth_method: "client_secret_basic",
      }),
    });
    expect(registered.status).toBe(201);
    const client = (await registered.json()) as { client_id: string; client_secret: string };
    expect(client.client_secret).toBeTruthy();
    const row = await run<OAuthServerRecordRow | undefined>(
      Effect.flatMap(Storage, (storage) =>
        storage.read((tx) => tx.findOAuthServerRecord(oauthServerRecordId("Client", client.client_id))),
      ),
    );
    expect(row?.secretCipher).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(client.client_secret);

    const first = handlers as NonNullable<typeof handlers>;
    try {
      handlers = { as: await createMcpAuthorizationServer(asOptions(base)), mcp: runtime };
      const exchange = (secret: string) =>
        fetch(`${base}/oauth/token`, {
          method: "POST",
          headers: {
            "Content-Type": "application/x-www-form-urlencoded",
            Authorization: `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString("base64")}`,
          },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code: "not-a-code",
            redirect_uri: "https://client.example/callback",
            code_verifier: "x".repeat(43),
          }).toString(),
        });
      // The right secret passes client authentication (the made-up code is what fails); a wrong one does not.
      expect(await (await exchange(client.client_secret)).json()).toMatchObject({ error: "invalid_grant" });
      expect(await (await exchange("wrong")).json()).toMatchObject({ error: "invalid_client" });
    } finally {
      handlers = first;
    }
  });
});

describe("revoking the server token pasted at consent", () => {
  it("ends the grants made with it: their access tokens and refresh tokens, and nothing else", async () => {
    const actor = { tenant: "owner", scopes: new Set(ALL_SCOPES) };
    const pasted = await run<{ id: string; value: string }>(
      createServerToken(actor, { serverId, token: { name: "pasted, then revoked" } }),
    );
    const doomed = await authorize(pasted.value);
    const kept = await authorize(serverToken);
    expect(await as.verifier.verify(doomed.saved?.access_token ?? "", resource())).toMatchObject({ tenant: "owner" });

    await run(revokeServerToken(actor, { serverId, tokenId: pasted.id }));

    expect(await as.verifier.verify(doomed.saved?.access_token ?? "", resource())).toMatchObject({
      _tag: "Unauthenticated",
    });
    const denied = await fetch(`${base}/mcp/${serverId}`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${doomed.saved?.access_token}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(denied.status).toBe(401);
    const refused = await refresh(doomed);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "invalid_grant" });

    // A grant made with another token of the same server is untouched.
    expect(await as.verifier.verify(kept.saved?.access_token ?? "", resource())).toMatchObject({ tenant: "owner" });
    expect((await refresh(kept)).status).toBe(200);
  });

  it("a refresh token revoked at /oauth/revoke ends its grant's access tokens too", async () => {
    const provider = await authorize(serverToken);
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: provider.saved?.refresh_token ?? "",
        token_type_hint: "refresh_token",
        client_id: provider.info?.client_id ?? "",
      }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(await as.verifier.verify(provider.saved?.access_token ?? "", resource())).toMatchObject({
      _tag: "Unauthenticated",
    });
  });
});
