import type { Unauthenticated, Unavailable } from "../errors/domain-errors.js";

// The port through which the MCP endpoint checks an OAuth access token for one of its servers (RFC 8707: the
// server's canonical URL is the token's audience). The service's own authorization server (@mcpsm/mcp-oauth)
// and an external one (apps/api: JWT or introspection) implement it; the MCP runtime uses it.

/** The caller behind a valid OAuth access token. */
export interface OAuthPrincipal {
  readonly tenant: string;
  /** The token's subject (`sub`), when it has one: upstream OAuth connections belong to (tenant, sub). */
  readonly subject?: string | undefined;
  readonly clientId?: string | undefined;
  readonly scopes: ReadonlyArray<string>;
  /** Seconds since the epoch. */
  readonly expiresAt?: number | undefined;
}

/** Verifies OAuth access tokens issued for one MCP server. */
export interface OAuthAccessTokenVerifier {
  /**
   * The principal; Unauthenticated when the token is not valid for `resource`; Unavailable when the
   * authorization server (its keys, its introspection endpoint) cannot be reached.
   */
  readonly verify: (token: string, resource: string) => Promise<OAuthPrincipal | Unauthenticated | Unavailable>;
}
