import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider from "oidc-provider";

// A real OAuth 2.0 authorization server (oidc-provider, OpenID-certified) on loopback, with a client for the
// client credentials grant (basic), one that only accepts client_secret_post, and one for the authorization
// code flow (consent is a headless form the test submits). Access tokens are ES256 JWTs for AUDIENCE.

export const AUDIENCE = "https://upstream.test/api";
export const SCOPES = ["items:read", "items:write", "admin"] as const;

export interface TestClient {
  readonly id: string;
  readonly secret: string;
}

export interface AuthorizationServer {
  readonly issuer: string;
  readonly tokenURL: string;
  readonly authURL: string;
  /** Public key the upstream verifies tokens with. */
  readonly publicJwk: JWK;
  readonly basicClient: TestClient;
  readonly postClient: TestClient;
  readonly codeClient: TestClient;
  /** Token endpoint requests so far, per grant type. */
  readonly tokenRequests: Map<string, number>;
  /** Lifetime of the next access tokens, seconds. */
  accessTokenTtl: number;
  readonly provider: Provider;
  readonly close: () => Promise<void>;
}

const secret = () => randomBytes(24).toString("base64url");

const readBody = async (req: IncomingMessage) => {
  const chunks: Array<Buffer> = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
};

/** Starts the authorization server; `redirectUris` are the code client's registered callbacks. */
export const startAuthorizationServer = async (
  redirectUris: string | ReadonlyArray<string>,
): Promise<AuthorizationServer> => {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), alg: "ES256", use: "sig", kid: `as-${Date.now()}` };
  const { d: _d, ...publicJwk } = privateJwk;
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const basicClient = { id: "cc-basic", secret: secret() };
  const postClient = { id: "cc-post", secret: secret() };
  const codeClient = { id: "code-client", secret: secret() };
  const state = { accessTokenTtl: 3600 };
  const provider = new Provider(issuer, {
    jwks: { keys: [privateJwk as never] },
    cookies: { keys: [secret()] },
    scopes: [...SCOPES, "offline_access"],
    clients: [
      {
        client_id: basicClient.id,
        client_secret: basicClient.secret,
        grant_types: ["client_credentials"],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: "client_secret_basic",
        id_token_signed_response_alg: "ES256",
        scope: SCOPES.join(" "),
      },
      {
        client_id: postClient.id,
        client_secret: postClient.secret,
        grant_types: ["client_credentials"],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: "client_secret_post",
        id_token_signed_response_alg: "ES256",
        scope: SCOPES.join(" "),
      },
      {
        client_id: codeClient.id,
        client_secret: codeClient.secret,
        grant_types: ["authorization_code", "refresh_token"],
        redirect_uris: typeof redirectUris === "string" ? [redirectUris] : [...redirectUris],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
        id_token_signed_response_alg: "ES256",
      },
    ],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: SCOPES.join(" "),
          audience: AUDIENCE,
          accessTokenTTL: state.accessTokenTtl,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "ES256" } },
        }),
      },
    },
    pkce: { required: () => true },
    issueRefreshToken: async () => true,
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
  });
  const tokenRequests = new Map<string, number>();
  const callback = provider.callback();
  http.on("request", (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? "/", issuer);
      const interaction = /^\/interaction\/([\w-]+)$/.exec(url.pathname);
      if (interaction !== null) {
        // The headless consent form: GET shows it, POST with `user` signs in and grants what was asked.
        const details = await provider.interactionDetails(req, res);
        if (req.method === "GET") {
          res.writeHead(200, { "Content-Type": "text/html" });
          res.end(`<form method="post"><input name="user"><button>allow</button></form>`);
          return;
        }
        const user =
          new URLSearchParams(await readBody(req)).get("user") ?? String(details.session?.accountId ?? "someone");
        const existing = details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId);
        const grant = existing ?? new provider.Grant({ accountId: user, clientId: String(details.params.client_id) });
        const missing = details.prompt.details as {
          missingOIDCScope?: Array<string>;
          missingResourceScopes?: Record<string, Array<string>>;
        };
        grant.addOIDCScope(["offline_access", ...(missing.missingOIDCScope ?? [])].join(" "));
        grant.addResourceScope(AUDIENCE, String(details.params.scope ?? ""));
        for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
          grant.addResourceScope(indicator, scopes.join(" "));
        const grantId = await grant.save();
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: user }, consent: { grantId } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      if (url.pathname === "/token" && req.method === "POST") {
        const body = await readBody(req);
        const grant = new URLSearchParams(body).get("grant_type") ?? "?";
        tokenRequests.set(grant, (tokenRequests.get(grant) ?? 0) + 1);
        // oidc-provider reads the body itself: hand it the bytes again.
        const { Readable } = await import("node:stream");
        const replay = Object.assign(Readable.from([Buffer.from(body)]), {
          headers: req.headers,
          method: req.method,
          url: req.url,
          socket: req.socket,
          httpVersion: req.httpVersion,
        });
        return callback(replay as unknown as IncomingMessage, res);
      }
      return callback(req, res);
    })().catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  return {
    issuer,
    tokenURL: `${issuer}/token`,
    authURL: `${issuer}/auth`,
    publicJwk,
    basicClient,
    postClient,
    codeClient,
    tokenRequests,
    get accessTokenTtl() {
      return state.accessTokenTtl;
    },
    set accessTokenTtl(value: number) {
      state.accessTokenTtl = value;
    },
    provider,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
};
