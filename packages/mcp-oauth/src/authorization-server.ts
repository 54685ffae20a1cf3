import { randomBytes } from "node:crypto";
import { readForm, sendHtml } from "./interaction-http.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Unauthenticated, Unavailable } from "@mcpsm/domain/errors";
import { mayCallMcpServer } from "@mcpsm/domain/mcp";
import type { OAuthAccessTokenVerifier, OAuthPrincipal } from "@mcpsm/domain/mcp";
import { createLocalJWKSet, decodeJwt, type JWK, jwtVerify } from "jose";
import type { Configuration, KoaContextWithOIDC } from "oidc-provider";
import { metadataDocuments, type OutboundFetch } from "./client-metadata-documents.js";
import { consentPage, type ConsentView } from "./consent-page.js";
import {
  type IdentityProviderSignIn,
  identityProviderSignIn,
  type SignInOptions,
} from "./identity-provider-sign-in.js";
import { DEFAULT_REGISTRATION_LIMITS, type RegistrationLimits, registrationGate } from "./registration-limits.js";
import { deriveSigningKey } from "./signing-key.js";
import { oauthRecords, type StorageRunner, storageAdapter } from "./storage-adapter.js";

// The service as the OAuth 2.1 authorization server of its own MCP endpoints, for clients that only speak
// OAuth (Claude, ChatGPT connectors, mcp-remote): oidc-provider (an OpenID-certified implementation) does
// the protocol — RFC 8414 metadata, RFC 7591 dynamic registration, authorization code with PKCE S256,
// refresh tokens, RFC 8707 resource indicators — and this file only decides who may consent: a person who
// pastes a server token of the server the client asks for, or who signs in at the identity provider as a
// member of the tenant owning it. The tokens it issues are JWTs whose audience is that server's canonical URL
// and whose subject is the server owner's tenant, so the MCP endpoint's own rule (an OAuth caller must
// belong to the server's tenant) applies unchanged. Its state (registrations, grants, sessions, codes,
// refresh tokens) is kept through the storage port and its signing key is derived from the service's
// encryption key, so every instance sharing the store serves the same authorization server.

/** The scope an MCP access token carries. */
export const MCP_SCOPE = "mcp";

export interface McpAuthorizationServerOptions {
  /** The issuer: the service's public base URL (no path). Endpoints live under `/oauth/`. */
  readonly issuer: string;
  /** The server id a resource indicator names (`<public URL>/mcp/<id>`), or undefined for anything else. */
  readonly serverIdOf: (resource: string) => string | undefined;
  /**
   * The tenant owning `serverId` and the token's id when `token` is a valid server token of it; undefined
   * when it is not; throws on an outage.
   */
  readonly checkServerToken: (
    serverId: string,
    token: string,
  ) => Promise<{ readonly tenant: string; readonly tokenId: string } | undefined>;
  /** Runs the storage port: registrations, grants, sessions and refresh tokens are kept there. */
  readonly runner: StorageRunner;
  /** Keys for the interaction cookies' signatures (newest first). */
  readonly cookieKeys: ReadonlyArray<string>;
  /**
   * Secrets the ES256 signing keys are derived from (32+ random bytes each; the service's encryption keys):
   * the first signs, every one verifies (tokens signed before a rotation stay valid until they expire).
   */
  readonly signingSecrets: ReadonlyArray<Uint8Array>;
  /** Consent by signing in at the identity provider (authorization code + PKCE there), when set. */
  readonly signIn?: SignInOptions | undefined;
  /** The tenant owning server `serverId`, undefined when there is none (for consent by signing in). */
  readonly serverOwner: (serverId: string) => Promise<string | undefined>;
  readonly accessTokenTtlSeconds?: number;
  /** Bounds of anonymous client registration (registration-limits.ts); defaults when absent. */
  readonly registration?: Partial<RegistrationLimits> | undefined;
  /** The client's address, for the per-address registration rate (default: the socket's peer). */
  readonly clientAddress?: ((req: IncomingMessage) => string) | undefined;
  /**
   * Outbound HTTP under the service's address policy; when given, a client may be a Client ID Metadata
   * Document (its `client_id` an https URL, client-metadata-documents.ts) besides a registered one.
   */
  readonly fetch?: OutboundFetch | undefined;
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
const SIGN_IN_START = /^\/oauth\/interaction\/([A-Za-z0-9_-]+)\/signin$/;
/** Where the identity provider sends the person back (register it there as a redirect URI). */
export const SIGN_IN_CALLBACK_PATH = "/oauth/signin/callback";
/** The custom access-token claim naming the grant, so a token dies with its grant (revocation). */
const GRANT_CLAIM = "grant_id";

const SESSION_GONE = "this sign-in has expired or was already used; start again from your MCP client";

const firstResource = (value: unknown): string | undefined =>
  typeof value === "string" ? value : Array.isArray(value) && typeof value[0] === "string" ? value[0] : undefined;

/** Builds the authorization server. */
export const createMcpAuthorizationServer = async (
  options: McpAuthorizationServerOptions,
): Promise<McpAuthorizationServer> => {
  // Loaded on first use: an instance that never serves OAuth never loads it (nor prints its warnings).
  const { default: Provider, errors } = await import("oidc-provider");
  const issuer = options.issuer.replace(/\/+$/, "");
  if (options.signingSecrets.length === 0) throw new Error("the authorization server needs a signing secret");
  const privateJwks: Array<JWK> = [];
  for (const secret of options.signingSecrets) privateJwks.push(await deriveSigningKey(secret));
  const keySet = createLocalJWKSet({ keys: privateJwks.map(({ d: _private, ...publicJwk }) => publicJwk) });
  const accessTokenTTL = options.accessTokenTtlSeconds ?? 3600;
  const records = oauthRecords(options.runner);
  // The server token a grant being saved was consented with, read by the adapter as it stores the grant.
  const consentedWith = new Map<string, string>();
  const signIn: IdentityProviderSignIn | undefined =
    options.signIn === undefined
      ? undefined
      : identityProviderSignIn(options.signIn, records, `${issuer}${SIGN_IN_CALLBACK_PATH}`);

  const registration = { ...DEFAULT_REGISTRATION_LIMITS, ...options.registration };
  const admitRegistration = registrationGate(registration, options.clientAddress);

  const documents = metadataDocuments(options.fetch);
  const configuration: Configuration = {
    adapter: storageAdapter(records, (grantId) => consentedWith.get(grantId), {
      unusedClientTtlSeconds: registration.unusedClientTtlSeconds,
    }),
    jwks: { keys: privateJwks as never },
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
    ...documents.configuration,
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      ...documents.features,
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
    extraTokenClaims: async (_ctx, token) =>
      token.kind === "AccessToken" && typeof token.grantId === "string" ? { [GRANT_CLAIM]: token.grantId } : undefined,
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
      signIn: signIn === undefined ? undefined : `/oauth/interaction/${details.uid}/signin`,
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
    const grantId = await saveGrant(owner.tenant, clientId, resource, details.params.scope, owner.tokenId);
    return provider.interactionFinished(
      req,
      res,
      { login: { accountId: owner.tenant }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  };

  /** Saves the grant of `resource` to `clientId` for `tenant`; `serverTokenId` when it was made by pasting one. */
  const saveGrant = async (
    tenant: string,
    clientId: string,
    resource: string,
    scope: unknown,
    serverTokenId?: string,
  ): Promise<string> => {
    const jti = randomBytes(24).toString("base64url");
    const grant = new provider.Grant({ jti, accountId: tenant, clientId } as never);
    grant.addResourceScope(resource, MCP_SCOPE);
    // Everything asked for within what this server knows: `mcp` (for the resource), openid, offline_access.
    const requested = String(scope ?? "")
      .split(" ")
      .filter((scope) => scope === MCP_SCOPE || scope === "openid" || scope === "offline_access");
    if (requested.length > 0) grant.addOIDCScope(requested.join(" "));
    if (serverTokenId !== undefined) consentedWith.set(jti, serverTokenId);
    try {
      return await grant.save();
    } finally {
      consentedWith.delete(jti);
    }
  };

  /** "Sign in" on the consent page: off to the identity provider, back at the callback. */
  const startSignIn = async (uid: string, res: ServerResponse) => {
    const interaction = signIn === undefined ? undefined : await provider.Interaction.find(uid);
    if (signIn === undefined || interaction === undefined)
      return sendHtml(res, 400, consentPage({ kind: "error", message: SESSION_GONE }));
    res.writeHead(303, { Location: await signIn.start(uid), "Cache-Control": "no-store" });
    res.end();
  };

  /**
   * Back from the identity provider: the person signed in as a member of `tenant`; when that tenant may use
   * the server asked for (docs/api-rules.md §4: its own servers), the grant is made and the flow resumes.
   */
  const finishSignIn = async (req: IncomingMessage, res: ServerResponse) => {
    if (signIn === undefined) return sendHtml(res, 404, consentPage({ kind: "error", message: "not found" }));
    const outcome = await signIn.finish(new URL(req.url ?? "/", issuer));
    const interaction = outcome.uid === undefined ? undefined : await provider.Interaction.find(outcome.uid);
    if (interaction === undefined) return sendHtml(res, 400, consentPage({ kind: "error", message: SESSION_GONE }));
    const resource = firstResource(interaction.params.resource);
    const serverId = resource === undefined ? undefined : options.serverIdOf(resource);
    const clientId = String(interaction.params.client_id ?? "");
    if (outcome.kind === "refused" || resource === undefined || serverId === undefined)
      return sendHtml(
        res,
        outcome.kind === "refused" ? outcome.status : 400,
        consentPage({
          kind: "error",
          message: outcome.kind === "refused" ? outcome.message : "no MCP server was asked for",
        }),
      );
    const owner = await options.serverOwner(serverId);
    // The MCP endpoint's own access rule, for the caller the token will name.
    if (
      owner === undefined ||
      !mayCallMcpServer({ kind: "oauth", tenant: outcome.tenant }, { id: serverId, tenant: owner })
    )
      return sendHtml(
        res,
        403,
        consentPage({
          kind: "error",
          message: "You signed in, but you may not use this MCP server. Start again from your MCP client.",
        }),
      );
    const grantId = await saveGrant(owner, clientId, resource, interaction.params.scope);
    interaction.result = { login: { accountId: owner }, consent: { grantId } };
    await interaction.save(Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000)));
    res.writeHead(303, { Location: interaction.returnTo, "Cache-Control": "no-store" });
    res.end();
  };

  const handleNode = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const signInStart = SIGN_IN_START.exec(path)?.[1];
    if (INTERACTION.test(path) || signInStart !== undefined || path === SIGN_IN_CALLBACK_PATH) {
      try {
        if (signInStart !== undefined) await startSignIn(signInStart, res);
        else if (path === SIGN_IN_CALLBACK_PATH) await finishSignIn(req, res);
        else await interaction(req, res);
      } catch (error) {
        if (!res.headersSent)
          sendHtml(
            res,
            error instanceof errors.SessionNotFound ? 400 : 500,
            consentPage({
              kind: "error",
              message: error instanceof errors.SessionNotFound ? SESSION_GONE : "the authorization server failed",
            }),
          );
      }
      return;
    }
    if (path === "/oauth/register" && req.method === "POST" && !(await admitRegistration(req, res))) return;
    // RFC 8414 names the metadata document differently; oidc-provider serves its OpenID form.
    if (path === RFC8414) req.url = OIDC_DISCOVERY;
    await callback(req, res);
  };

  // A token is valid while its grant is: revoking the grant (at /oauth/revoke, or by revoking the server
  // token it was consented with) ends its access tokens at once, on every instance.
  const verify = async (token: string, resource: string): Promise<OAuthPrincipal | Unauthenticated | Unavailable> => {
    const refused = new Unauthenticated({
      detail: "the access token is invalid, expired, revoked or for another server",
    });
    let payload: Awaited<ReturnType<typeof jwtVerify>>["payload"];
    try {
      ({ payload } = await jwtVerify(token, keySet, {
        issuer: `${issuer}`,
        audience: resource,
        typ: "at+jwt",
        requiredClaims: ["exp", "sub", GRANT_CLAIM],
      }));
    } catch {
      return refused;
    }
    const grantId = payload[GRANT_CLAIM];
    try {
      if (typeof grantId !== "string" || (await records.find("Grant", grantId)) === undefined) return refused;
    } catch (error) {
      if (error instanceof Unavailable) return error;
      throw error;
    }
    return {
      tenant: String(payload.sub),
      subject: String(payload.sub),
      clientId: typeof payload.client_id === "string" ? payload.client_id : undefined,
      scopes: typeof payload.scope === "string" ? payload.scope.split(" ") : [],
      expiresAt: payload.exp,
    };
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
