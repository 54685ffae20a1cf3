import { createHash } from "node:crypto";
import type {
  EffectRunner,
  UpstreamAuthorization,
  UpstreamTokenAnswer,
  UpstreamTokenRequest,
} from "@mcpsm/upstream-http";
import { authorizationCodeGrant } from "./authorization-code.js";
import { consentPages, type PageAnswer } from "./consent-pages.js";
import { TokenCache, useUntil } from "./token-cache.js";
import { clientSettingsOf, TokenEndpoint, TokenEndpointFault } from "./token-endpoint.js";
import type { PolicyFetch } from "@mcpsm/upstream-http";

// The service's upstream OAuth 2.0 client (docs/api-rules.md §13), behind the MCP runtime's narrow
// UpstreamAuthorization port. A provider without `authURL` uses the client credentials grant: one token per
// (provider, scope set, client settings), cached until shortly before `expires_in`, fetched by one request
// however many calls wait, and fetched again after an upstream 401.

export interface UpstreamOAuthOptions {
  /** The clock (tests move it). */
  readonly now?: () => number;
  /**
   * What the authorization code grant needs (providers with an `authURL`): the domain services, the key
   * that signs consent states, and the service's public base URL. Without it such providers answer a tool
   * error saying the service is not set up for them.
   */
  readonly authorizationCode?: {
    readonly runner: EffectRunner;
    readonly stateKey: Uint8Array;
    readonly publicUrl: () => string;
  };
}

/** A scope set as one canonical string (sorted, deduplicated). */
export const scopeKey = (scopes: ReadonlyArray<string>) => [...new Set(scopes)].sort().join(" ");

/**
 * The cache key of a client-credentials token: the provider, its client settings (a changed secret or URL
 * starts afresh; the secret only as its ciphertext's digest) and the scope set.
 */
const clientCredentialsKey = (request: UpstreamTokenRequest) =>
  createHash("sha256")
    .update(
      [
        request.provider.id,
        request.provider.oauth2Config.tokenURL,
        request.provider.oauth2Config.clientID,
        request.provider.oauth2Config.clientSecretCipher ?? "",
        scopeKey(request.scopes),
      ].join("\u0000"),
    )
    .digest("base64url");

/** Creates the upstream OAuth client. */
export const createUpstreamOAuth = (
  options: UpstreamOAuthOptions = {},
): UpstreamAuthorization & {
  readonly cache: TokenCache;
  /** The public consent pages, when the authorization code grant is set up. */
  readonly pages:
    | {
        readonly authorize: (query: URLSearchParams) => Promise<PageAnswer>;
        readonly callback: (query: URLSearchParams, fetch: PolicyFetch, requestId?: string) => Promise<PageAnswer>;
      }
    | undefined;
} => {
  const now = options.now ?? Date.now;
  const endpoint = new TokenEndpoint();
  const cache = new TokenCache(now);
  const code =
    options.authorizationCode === undefined
      ? undefined
      : authorizationCodeGrant({ ...options.authorizationCode, endpoint, now });
  const pages =
    options.authorizationCode === undefined ? undefined : consentPages({ ...options.authorizationCode, endpoint, now });

  const clientCredentials = async (request: UpstreamTokenRequest): Promise<UpstreamTokenAnswer> => {
    const settings = clientSettingsOf(request);
    try {
      const token = await cache.get(clientCredentialsKey(request), async () => {
        const tokens = await endpoint.clientCredentials(settings, request.scopes);
        return { accessToken: tokens.accessToken, useUntil: useUntil(now(), tokens.expiresIn) };
      });
      return { kind: "token", accessToken: token.accessToken };
    } catch (error) {
      if (error instanceof TokenEndpointFault) return { kind: "failure", message: error.message };
      throw error;
    }
  };

  return {
    cache,
    pages,
    token: async (request) => {
      if (request.provider.oauth2Config.authURL === "") return clientCredentials(request);
      if (code === undefined)
        return {
          kind: "failure",
          message: `provider '${request.provider.name}' uses the authorization code grant, which this service is not set up for`,
        };
      try {
        return await code.token(request);
      } catch (error) {
        // The store could not be read or written (an outage): the model reads why, nothing is half-made. Any
        // other throw is a defect and goes on to be logged as one.
        if ((error as { _tag?: unknown })?._tag !== "Unavailable") throw error;
        return {
          kind: "failure",
          message: `the connection to provider '${request.provider.name}' could not be read or stored (the service's store is unavailable); retry later`,
        };
      }
    },
    rejected: async (request, accessToken) => {
      if (request.provider.oauth2Config.authURL === "") cache.forget(clientCredentialsKey(request), accessToken);
      else await code?.rejected(request, accessToken);
    },
  };
};
