import type { IncomingMessage, ServerResponse } from "node:http";
import { Unauthenticated } from "@mcpsm/domain";
import type { OAuthAccessTokenVerifier, OAuthPrincipal } from "@mcpsm/mcp-runtime";
import { createLocalJWKSet, decodeJwt, exportJWK, generateKeyPair, type JWK, jwtVerify } from "jose";
import type { Configuration, KoaContextWithOIDC } from "oidc-provider";
import { consentPage, type ConsentView } from "./consent-page.js";

// The service as the OAuth 2.1 authorization server of its own MCP endpoints, for clients that only speak
// OAuth (Claude, ChatGPT connectors, mcp-remote): oidc-provider (an OpenID-certified implementation) does
// the protocol — RFC 8414 metadata, RFC 7591 dynamic registration, authorization code with PKCE S256,
// refresh tokens, RFC 8707 resource indicators — and this file only decides who may consent: a person who
// pastes a server token of the server the client asks for. The tokens it issues are JWTs whose audience is
// that server's canonical URL and whose subject is the server owner's tenant, so the MCP endpoint's own rule
// (an OAuth caller must belong to the server's tenant) applies unchanged.

/** The scope an MCP access token carries. */
export const MCP_SCOPE = "mcp";

export interface McpAuthorizationServerOptions {
  /** The issuer: the service's public base URL (no path). Endpoints live under `/oauth/`. */
  readonly issuer: string;
  /** The server id a resource indicator names (`<public URL>/mcp/<id>`), or undefined for anything else. */
  readonly serverIdOf: (resource: string) => string | undefined;
  /**
   * The tenant owning `serverId` when `token` is a valid server token of it; undefined when it is not;
   * throws on an outage.
   */
  readonly checkServerToken: (serverId: string, token: string) => Promise<{ readonly tenant: string } | undefined>;
  /** Keys for the interaction cookies' signatures (newest first). */
  readonly cookieKeys: ReadonlyArray<string>;
  /** The ES256 private JWK that signs tokens; one is generated (tokens then die with the process) when absent. */
  readonly signingKey?: JWK | undefined;
  readonly accessTokenTtlSeconds?: number;
}

export interface McpAuthorizationServer {
  readonly issuer: string;
  /** True for the paths it answers: `/oauth/*` and the two discovery documents. */
  readonly matches: (path: string) => boolean;
  readonly handleNode: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Verifies the access tokens it issued (for the MCP endpoint). */
  readonly verifier: OAuthAccessTokenVerifier;
  /** True when `token` looks like one it issued (its `iss`), to choose the verifier. */
  readonly issued: (token: string) => boolean;
}

const OAUTH_PREFIX = "/oauth/";
const RFC8414 = "/.well-known/oauth-authorization-server";
const OIDC_DISCOVERY = "/.well-known/openid-configuration";
const INTERACTION = /^\/oauth\/interaction\/([A-Za-z0-9_-]+)$/;

const readForm = async (req: IncomingMessage, limit = 16 * 1024): Promise<URLSearchParams> => {
  const chunks: Array<Buffer> = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error("form too large");
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
};

const sendHtml = (res: ServerResponse, status: number, html: string) => {
  res.writeHead(status, {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Security-Policy":
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
  });
  res.end(html);
};

const firstResource = (value: unknown): string | undefined =>
  typeof value === "string" ? value : Array.isArray(value) && typeof value[0] === "string" ? value[0] : undefined;

/** Builds the authorization server. */
export const createMcpAuthorizationServer = async (
  options: McpAuthorizationServerOptions,
): Promise<McpAuthorizationServer> => {
  // Loaded on first use: an instance that never serves OAuth never loads it (nor prints its warnings).
  const { default: Provider, errors } = await import("oidc-provider");
  const issuer = options.issuer.replace(/\/+$/, "");
  const privateJwk =
    options.signingKey ??
    (await (async () => {
      const { privateKey } = await generateKeyPair("ES256", { extractable: true });
      return { ...(await exportJWK(privateKey)), alg: "ES256", use: "sig", kid: `mcp-as-${Date.now()}` };
    })());
  const { d: _private, ...publicJwk } = privateJwk;
  const keySet = createLocalJWKSet({ keys: [publicJwk] });
  const accessTokenTTL = options.accessTokenTtlSeconds ?? 3600;

  const configuration: Configuration = {
    jwks: { keys: [privateJwk as never] },
    cookies: { keys: [...options.cookieKeys] },
    scopes: [MCP_SCOPE],
    claims: { openid: ["sub"] },
    routes: {
      authorization: "/oauth/authorize",
      token: "/oauth/token",
      registration: "/oauth/register",
      jwks: "/oauth/jwks",
      revocation: "/oauth/revoke",
      end_session: "/oauth/logout",
      userinfo: "/oauth/userinfo",
      pushed_authorization_request: "/oauth/par",
      code_verification: "/oauth/device",
      device_authorization: "/oauth/device/auth",
      backchannel_authentication: "/oauth/backchannel",
      introspection: "/oauth/introspect",
      challenge: "/oauth/challenge",
    },
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      id_token_signed_response_alg: "ES256",
    },
    enabledJWA: { idTokenSigningAlgValues: ["ES256"] } as never,
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets the one it was granted (there is always exactly one).
        defaultResource: (_ctx, _client, oneOf) => (oneOf ? oneOf[0] : undefined) as never,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (options.serverIdOf(resource) === undefined)
            throw new errors.InvalidTarget("the resource must be the URL of an MCP server of this service");
          return {
            scope: MCP_SCOPE,
            audience: resource,
            accessTokenTTL,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "ES256" } },
          };
        },
      },
    },
    pkce: { required: () => true },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    // The grant made at consent is the whole grant; nothing else is asked.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId =
        ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(ctx.oidc.client?.clientId ?? "");
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    ttl: {
      AccessToken: accessTokenTTL,
      AuthorizationCode: 60,
      Interaction: 600,
      Grant: 14 * 24 * 3600,
      Session: 14 * 24 * 3600,
      RefreshToken: 14 * 24 * 3600,
      IdToken: 3600,
    },
    renderError: async (ctx, out) => {
      ctx.type = "html";
      ctx.body = consentPage({ kind: "error", message: `${out.error}: ${out.error_description ?? ""}` });
    },
  };
  const provider = new Provider(issuer, configuration);
  const callback = provider.callback();

  /** The consent step: who the client is, which server it asks for; a valid server token finishes it. */
  const interaction = async (req: IncomingMessage, res: ServerResponse) => {
    const details = await provider.interactionDetails(req, res);
    const resource = firstResource(details.params.resource);
    const serverId = resource === undefined ? undefined : options.serverIdOf(resource);
    const clientId = String(details.params.client_id ?? "");
    const client = await provider.Client.find(clientId);
    const view: ConsentView = {
      kind: "consent",
      action: `/oauth/interaction/${details.uid}`,
      clientName: client?.clientName ?? clientId,
      resource: resource ?? "",
    };
    if (serverId === undefined || resource === undefined)
      return sendHtml(
        res,
        400,
        consentPage({ kind: "error", message: "the client did not name an MCP server of this service (resource)" }),
      );
    if (req.method === "GET") return sendHtml(res, 200, consentPage(view));
    if (req.method !== "POST") return sendHtml(res, 405, consentPage({ kind: "error", message: "method not allowed" }));
    const form = await readForm(req);
    if (form.get("decision") === "deny")
      return provider.interactionFinished(
        req,
        res,
        { error: "access_denied", error_description: "the person declined" },
        { mergeWithLastSubmission: false },
      );
    const owner = await options.checkServerToken(serverId, (form.get("token") ?? "").trim());
    if (owner === undefined)
      return sendHtml(res, 401, consentPage({ ...view, problem: "That is not a valid server token of this server." }));
    const grant = new provider.Grant({ accountId: owner.tenant, clientId });
    grant.addResourceScope(resource, MCP_SCOPE);
    // Everything asked for within what this server knows: `mcp` (for the resource), openid, offline_access.
    const requested = String(details.params.scope ?? "")
      .split(" ")
      .filter((scope) => scope === MCP_SCOPE || scope === "openid" || scope === "offline_access");
    if (requested.length > 0) grant.addOIDCScope(requested.join(" "));
    const grantId = await grant.save();
    return provider.interactionFinished(
      req,
      res,
      { login: { accountId: owner.tenant }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  };

  const handleNode = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (INTERACTION.test(path)) {
      try {
        await interaction(req, res);
      } catch (error) {
        if (!res.headersSent)
          sendHtml(
            res,
            error instanceof errors.SessionNotFound ? 400 : 500,
            consentPage({
              kind: "error",
              message:
                error instanceof errors.SessionNotFound
                  ? "this sign-in has expired or was already used; start again from your MCP client"
                  : "the authorization server failed",
            }),
          );
      }
      return;
    }
    // RFC 8414 names the metadata document differently; oidc-provider serves its OpenID form.
    if (path === RFC8414) req.url = OIDC_DISCOVERY;
    await callback(req, res);
  };

  const verify = async (token: string, resource: string): Promise<OAuthPrincipal | Unauthenticated> => {
    try {
      const { payload } = await jwtVerify(token, keySet, {
        issuer: `${issuer}`,
        audience: resource,
        typ: "at+jwt",
        requiredClaims: ["exp", "sub"],
      });
      return {
        tenant: String(payload.sub),
        clientId: typeof payload.client_id === "string" ? payload.client_id : undefined,
        scopes: typeof payload.scope === "string" ? payload.scope.split(" ") : [],
        expiresAt: payload.exp,
      };
    } catch {
      return new Unauthenticated({ detail: "the access token is invalid, expired or for another server" });
    }
  };

  return {
    issuer,
    matches: (path) => path.startsWith(OAUTH_PREFIX) || path === RFC8414 || path === OIDC_DISCOVERY,
    handleNode,
    verifier: { verify },
    issued: (token) => {
      try {
        return decodeJwt(token).iss === issuer;
      } catch {
        return false;
      }
    },
  };
};
