import type { IncomingMessage, ServerResponse } from "node:http";
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { Option, Redacted } from "effect";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import type Provider from "oidc-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { clientFor, startTestService, type TestService } from "./support/harness.js";
import { type Landing, userAgent } from "./support/oauth-user-agent.js";
import { plant } from "./support/planted-secrets.js";
import { expectStatus } from "./support/problems.js";

// Issue 16: consent on the service's OAuth page by signing in at the identity provider the management API
// trusts (AUTH_*), instead of pasting a server token. The identity provider is a real authorization server
// on loopback (oidc-provider, as `localhost` so that its cookies and the service's stay apart as in a
// browser), issuing JWT access tokens for the management API's audience; the service runs in JWKS mode with
// MCP_OAUTH_SERVER on and MCP_OAUTH_SIGNIN_CLIENT_ID set. The SDK client's own OAuth flow runs headlessly:
// consent page → "Sign in" → the identity provider (code + PKCE, client_secret_basic) → back to the service →
// code to the client → tools. A person of another tenant signs in fine but may not consent for the server.

const API = "https://api.mcpsm.test/";
const CLIENT_ID = "mcpsm-consent";
const CLIENT_SECRET = "idp-client-secret-for-the-consent-test";
const redirect = "http://127.0.0.1:1/callback";

let idpHttp: Loopback;
let idp: Provider | undefined;
let idpUrl: string;
let privateJwk: JWK;
let svc: TestService;
/** Who the identity provider signs in (the person at the browser). */
let person = "";
/** Requests the identity provider saw, by path. */
const idpHits: Array<string> = [];

/** A management access token of the identity provider for `tenant` (as it would issue one). */
const managementToken = async (tenant: string) => {
  const { importJWK } = await import("jose");
  return new SignJWT({ scope: "server:create server:list server:create_token" })
    .setProtectedHeader({ alg: "RS256", kid: privateJwk.kid ?? "" })
    .setIssuer(idpUrl)
    .setAudience(API)
    .setSubject(tenant)
    .setIssuedAt()
    .setExpirationTime("10m")
    .sign(await importJWK(privateJwk, "RS256"));
};

beforeAll(async () => {
  // The service's client secret at the identity provider must appear in no answer and no log line.
  plant(CLIENT_SECRET, "client secret");
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  privateJwk = { ...(await exportJWK(privateKey)), kid: "idp-key", alg: "RS256", use: "sig" };
  // The identity provider listens first (the service needs its URL); it is configured once the service's
  // callback URL (its redirect URI there) is known.
  idpHttp = await listenOnLoopback((req: IncomingMessage, res: ServerResponse) => {
    idpHits.push((req.url ?? "").split("?")[0] ?? "");
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (idp === undefined) {
      res.writeHead(503).end();
      return;
    }
    const provider = idp;
    if (path.startsWith("/interaction/")) {
      // The person signs in and agrees at once (the identity provider's own pages are not under test).
      void (async () => {
        const details = await provider.interactionDetails(req, res);
        const grant = new provider.Grant({ accountId: person, clientId: String(details.params.client_id) });
        grant.addOIDCScope("openid server:list");
        grant.addResourceScope(API, "server:list");
        const grantId = await grant.save();
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: person }, consent: { grantId } },
          { mergeWithLastSubmission: false },
        );
      })();
      return;
    }
    void provider.callback()(req, res);
  });
  idpUrl = `http://localhost:${idpHttp.port}`;

  svc = await startTestService({
    auth: { mode: "jwks", jwksUrl: new URL(`${idpUrl}/jwks`), issuer: idpUrl, audience: API, tenantClaim: "sub" },
    mcpOAuthServer: true,
    mcpOAuthSignIn: {
      clientId: CLIENT_ID,
      clientSecret: Option.some(Redacted.make(CLIENT_SECRET)),
      scope: "openid server:list",
    },
  });

  const { default: OidcProvider, errors } = await import("oidc-provider");
  idp = new OidcProvider(idpUrl, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [`${svc.url}/oauth/signin/callback`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [privateJwk as never] },
    scopes: ["openid", "server:list"],
    cookies: { keys: ["identity-provider-cookie-key"] },
    pkce: { required: () => true },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    loadExistingGrant: async (ctx) => {
      const grantId =
        ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(ctx.oidc.client?.clientId ?? "");
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== API) throw new errors.InvalidTarget();
          return { scope: "server:list", audience: API, accessTokenFormat: "jwt", jwt: { sign: { alg: "RS256" } } };
        },
      },
    },
  });
});

afterAll(async () => {
  await svc?.close();
  await idpHttp?.close();
});

/** An MCP host's OAuth state for one server. */
const oauthClient = () => {
  const state: {
    info?: Parameters<NonNullable<OAuthClientProvider["saveClientInformation"]>>[0];
    tokens?: Parameters<OAuthClientProvider["saveTokens"]>[0];
    verifier: string;
    url?: URL;
  } = { verifier: "" };
  const provider: OAuthClientProvider = {
    redirectUrl: redirect,
    clientMetadata: { client_name: "SDK via sign-in", redirect_uris: [redirect], token_endpoint_auth_method: "none" },
    clientInformation: () => state.info,
    saveClientInformation: (info) => {
      state.info = info;
    },
    tokens: () => state.tokens,
    saveTokens: (tokens) => {
      state.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      state.url = url;
    },
    saveCodeVerifier: (verifier) => {
      state.verifier = verifier;
    },
    codeVerifier: () => state.verifier,
  };
  return { state, provider };
};

/** Opens the authorization URL, clicks "Sign in" on the consent page; where the flow lands. */
const signInAndConsent = async (authorizationUrl: string): Promise<Landing> => {
  const agent = userAgent(redirect);
  const page = await agent.follow(authorizationUrl);
  expect(page.res.status).toBe(200);
  const html = await page.res.text();
  const signIn = /id="signin" href="([^"]+)"/.exec(html)?.[1];
  expect(signIn).toBeDefined();
  return agent.follow(new URL(signIn ?? "", page.url).href);
};

const newServer = async (tenant: string, name: string) => {
  const api = clientFor(svc.url, await managementToken(tenant));
  const created = await api.post("/servers", { server: { name } });
  expectStatus(created, 201);
  return created.body.server.id as string;
};

describe("consent by signing in at the identity provider", () => {
  it("the SDK client's flow: the person signs in as the server's tenant, and the client gets its tools", async () => {
    const serverId = await newServer("team-signin", "Signed in");
    const serverUrl = `${svc.url}/mcp/${serverId}`;
    const prm = (await (await fetch(`${svc.url}/.well-known/oauth-protected-resource/mcp/${serverId}`)).json()) as {
      authorization_servers: Array<string>;
    };
    expect(prm.authorization_servers).toEqual([svc.url, idpUrl]);

    person = "team-signin";
    const client = oauthClient();
    const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: client.provider });
    await expect(new Client({ name: "sdk", version: "1" }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const landed = await signInAndConsent(client.state.url?.href ?? "");
    expect(landed.url.startsWith(redirect)).toBe(true);
    // The identity provider was really used: its authorization and token endpoints.
    expect(idpHits).toEqual(expect.arrayContaining(["/.well-known/openid-configuration", "/auth", "/token"]));
    await transport.finishAuth(new URL(landed.url).searchParams);
    const claims = JSON.parse(
      Buffer.from((client.state.tokens?.access_token ?? "").split(".")[1] ?? "", "base64url").toString(),
    );
    expect(claims).toMatchObject({ iss: svc.url, aud: serverUrl, sub: "team-signin", scope: "mcp" });

    const mcp = new Client({ name: "sdk", version: "1" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: client.provider }));
    expect(mcp.getServerVersion()?.name).toBe("Signed in");
    expect((await mcp.listTools()).tools).toEqual([]);
    await mcp.close();
  });

  it("a person of another tenant signs in but may not consent for the server (403), and no code is issued", async () => {
    const serverId = await newServer("team-owner", "Not yours");
    person = "someone-else";
    const client = oauthClient();
    const transport = new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${serverId}`), {
      authProvider: client.provider,
    });
    await expect(new Client({ name: "sdk", version: "1" }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const landed = await signInAndConsent(client.state.url?.href ?? "");
    expect(landed.url.startsWith(`${svc.url}/oauth/signin/callback`)).toBe(true);
    expect(landed.res.status).toBe(403);
    expect(await landed.res.text()).toContain("you may not use this MCP server");
  });

  it("a forged or replayed callback is refused without reaching the identity provider", async () => {
    const before = idpHits.length;
    const forged = await fetch(`${svc.url}/oauth/signin/callback?code=abc&state=made-up`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain("expired or was already used");
    expect(idpHits.slice(before).filter((path) => path === "/token")).toEqual([]);
  });
});
