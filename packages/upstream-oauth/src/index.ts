/**
 * @mcpsm/upstream-oauth: the service's OAuth 2.0 client towards upstream APIs whose provider has
 * `oauth2Config` (docs/api-rules.md §13), implementing the MCP runtime's UpstreamAuthorization port with
 * oauth4webapi.
 */
export { type CachedToken, TokenCache, useUntil } from "./token-cache.js";
export {
  type ClientAuthMethod,
  type IssuedTokens,
  type OAuthClientSettings,
  TokenEndpoint,
  TokenEndpointFault,
} from "./token-endpoint.js";
export { createUpstreamOAuth, scopeKey, type UpstreamOAuthOptions } from "./upstream-oauth.js";
export type { PageAnswer } from "./consent-pages.js";
export { type ConsentState, decodeConsentState, encodeConsentState } from "./consent-state.js";
export { redirectUriOf } from "./authorization-code.js";
