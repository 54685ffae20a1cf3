import {
  beginUpstreamConsent,
  CONSENT_TTL_SECONDS,
  connectionOwner,
  coversScopes,
  dropUpstreamConnection,
  findUpstreamConnection,
  saveUpstreamConnection,
  type UpstreamConnection,
} from "@mcpsm/domain/mcp";
import type { EffectRunner, UpstreamTokenAnswer, UpstreamTokenRequest } from "@mcpsm/upstream-http";
import * as oauth from "oauth4webapi";
import { encodeConsentState } from "./consent-state.js";
import { run } from "./run-effect.js";
import { clientSettingsOf, type TokenEndpoint, type TokenEndpointFault } from "./token-endpoint.js";
import { useUntil } from "./token-cache.js";

// The authorization code grant with PKCE S256 (docs/api-rules.md §13): a connection per caller, kept in the
// store (encrypted), so every instance sees it and no other caller ever gets it. A call whose caller has no
// connection covering the tool's scopes answers with a consent URL for the union of the scopes of that
// provider's tools in the calling server (and what the connection had); an access token about to expire, or
// refused by the upstream, is refreshed once; `invalid_grant` deletes the connection (consent again).

export interface AuthorizationCodeOptions {
  readonly runner: EffectRunner;
  readonly endpoint: TokenEndpoint;
  /** Signs consent states. */
  readonly stateKey: Uint8Array;
  /** The service's public base URL (no trailing slash): the consent URL and the redirect URI live under it. */
  readonly publicUrl: () => string;
  readonly now: () => number;
}

/** The redirect URI every consent uses: fixed to the service's public URL. */
export const redirectUriOf = (publicUrl: string) => `${publicUrl}/oauth2/callback`;

/** The token requests of providers with an `authURL`. */
export const authorizationCodeGrant = (options: AuthorizationCodeOptions) => {
  const { runner, endpoint } = options;
  /** Refreshes in flight per connection (one per connection however many calls wait). */
  const refreshing = new Map<string, Promise<UpstreamTokenAnswer | "consent">>();
  /** Access tokens an upstream refused (digest-free: they live only in memory, bounded). */
  const refused = new Set<string>();

  const consent = async (request: UpstreamTokenRequest, had: ReadonlyArray<string>): Promise<UpstreamTokenAnswer> => {
    const scopes = [...new Set([...request.serverScopes, ...request.scopes, ...had])].sort();
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
    const begun = await run(
      runner,
      beginUpstreamConsent({
        providerId: request.provider.id,
        tenant: request.tenant,
        caller: request.caller,
        scopes,
        codeVerifier,
      }),
    );
    const state = encodeConsentState(options.stateKey, {
      consentId: begun.id,
      providerId: request.provider.id,
      scopes,
      codeChallenge,
      expiresAt: Math.floor(options.now() / 1000) + CONSENT_TTL_SECONDS,
    });
    const url = `${options.publicUrl()}/oauth2/authorize?state=${encodeURIComponent(state)}`;
    return {
      kind: "consent",
      url,
      message: `provider '${request.provider.name}' needs your consent (scopes: ${scopes.join(" ") || "none"}); the link is valid for ${CONSENT_TTL_SECONDS / 60} minutes`,
    };
  };

  const refresh = (request: UpstreamTokenRequest, connection: UpstreamConnection) => {
    const key = connection.row.id;
    const running = refreshing.get(key);
    if (running !== undefined) return running;
    const started = (async (): Promise<UpstreamTokenAnswer | "consent"> => {
      const refreshToken = connection.tokens.refreshToken;
      if (refreshToken === undefined) return "consent";
      try {
        const tokens = await endpoint.refresh(clientSettingsOf(request), refreshToken);
        await run(
          runner,
          saveUpstreamConnection({
            providerId: request.provider.id,
            tenant: request.tenant,
            owner: connectionOwner(request.caller),
            scopes: tokens.scopes ?? connection.row.scopes,
            tokens: { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? refreshToken },
            expiresIn: tokens.expiresIn,
          }),
        );
        return { kind: "token", accessToken: tokens.accessToken };
      } catch (error) {
        const fault = error as TokenEndpointFault;
        if (fault.name !== "TokenEndpointFault") throw error;
        if (!fault.invalidGrant) return { kind: "failure", message: fault.message };
        // Another instance may have refreshed (rotating the refresh token) meanwhile: use its tokens.
        const now = await run(runner, findUpstreamConnection(request.provider.id, request.tenant, request.caller));
        if (now !== undefined && now.tokens.refreshToken !== refreshToken && !refused.has(now.tokens.accessToken))
          return { kind: "token", accessToken: now.tokens.accessToken };
        await run(runner, dropUpstreamConnection(connection.row.id));
        return "consent";
      }
    })().finally(() => refreshing.delete(key));
    refreshing.set(key, started);
    return started;
  };

  return {
    token: async (request: UpstreamTokenRequest): Promise<UpstreamTokenAnswer> => {
      let connection: UpstreamConnection | undefined;
      try {
        connection = await run(runner, findUpstreamConnection(request.provider.id, request.tenant, request.caller));
      } catch (error) {
        if ((error as { _tag?: unknown })?._tag !== "Unavailable") throw error;
        return {
          kind: "failure",
          message: `the connection to provider '${request.provider.name}' could not be read (the service's store is unavailable); retry later`,
        };
      }
      if (connection === undefined) return consent(request, []);
      if (!coversScopes(connection.row.scopes, request.scopes)) return consent(request, connection.row.scopes);
      const stale =
        refused.has(connection.tokens.accessToken) ||
        useUntil(
          connection.row.updatedAt.getTime(),
          (connection.row.expiresAt.getTime() - connection.row.updatedAt.getTime()) / 1000,
        ) <= options.now();
      if (!stale) return { kind: "token", accessToken: connection.tokens.accessToken };
      const refreshed = await refresh(request, connection);
      return refreshed === "consent" ? consent(request, connection.row.scopes) : refreshed;
    },
    rejected: async (_request: UpstreamTokenRequest, accessToken: string) => {
      refused.add(accessToken);
      if (refused.size > 10_000) refused.delete(refused.values().next().value ?? "");
    },
  };
};
