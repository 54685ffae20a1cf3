import type { McpCaller } from "@mcpsm/domain/mcp";
import type { ProviderRow } from "@mcpsm/domain/storage";

// The narrow port through which a tools/call of a provider with `oauth2Config` gets the access token it sends
// upstream (docs/api-rules.md §13). The runtime knows nothing of OAuth: it asks for a token, sends it as
// `Authorization: Bearer`, and reports a 401 once. An implementation (`@mcpsm/upstream-oauth`) is given by
// the embedder; without one, such tools are called without a token.

/** The fetch the runtime hands out: it goes through the same network policy, deadline and size cap as upstream calls. */
export type PolicyFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** What a tools/call asks for. */
export interface UpstreamTokenRequest {
  /** The provider as stored (its `oauth2Config` is not null). */
  readonly provider: ProviderRow & { readonly oauth2Config: NonNullable<ProviderRow["oauth2Config"]> };
  /** The tool's `oauth2Scopes`. */
  readonly scopes: ReadonlyArray<string>;
  /** The client secret, decrypted on demand (only when a token must be fetched). */
  readonly clientSecret: () => Promise<string>;
  /** Who calls `/mcp/{serverId}` (an authorization-code connection belongs to it). */
  readonly caller: McpCaller;
  /** The calling server: a consent asks for the union of its tools' scopes on the provider. */
  readonly serverId: string;
  /** The calling server's tenant (its owner): connections are kept per (provider, tenant, caller). */
  readonly tenant: string;
  /** The `oauth2Scopes` of every tool of this provider in the calling server. */
  readonly serverScopes: ReadonlyArray<string>;
  /** Outbound HTTP for the token endpoint, under the upstream network policy. */
  readonly fetch: PolicyFetch;
}

/** A token to send, a consent the caller must give first, or why there is no token (the model reads it). */
export type UpstreamTokenAnswer =
  | { readonly kind: "token"; readonly accessToken: string }
  | { readonly kind: "consent"; readonly url: string; readonly message: string }
  | { readonly kind: "failure"; readonly message: string };

/** Obtains upstream access tokens for tools of providers with `oauth2Config`. */
export interface UpstreamAuthorization {
  /** The access token for this call (cached or fetched), a consent to ask for, or a failure. */
  readonly token: (request: UpstreamTokenRequest) => Promise<UpstreamTokenAnswer>;
  /**
   * The upstream answered 401 to `accessToken`: forget it, so that the next `token` fetches (or refreshes)
   * a new one. The runtime retries once.
   */
  readonly rejected: (request: UpstreamTokenRequest, accessToken: string) => Promise<void>;
}
