import { Unauthenticated, type Unavailable } from "@mcpsm/domain/errors";
import { Exit } from "effect";
import type { McpAuthentication } from "./mcp-authentication.js";

// OAuth access tokens for one MCP server (RFC 8707: the server's canonical URL is their audience). Whether the
// token's tenant may use the server is the domain's rule, applied once the server is known.

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

/** Authenticates an OAuth access token for the server at `resource`; refuses every token when none is configured. */
export const oauthAuth =
  (verifier: OAuthAccessTokenVerifier | undefined) =>
  async (token: string, resource: string): Promise<Exit.Exit<McpAuthentication, Unauthenticated | Unavailable>> => {
    if (verifier === undefined)
      return Exit.fail(new Unauthenticated({ detail: "the token is not a server token of this server" }));
    const verified = await verifier.verify(token, resource);
    if ("_tag" in verified) return Exit.fail(verified);
    return Exit.succeed({
      caller: { kind: "oauth", tenant: verified.tenant, subject: verified.subject },
      clientId: verified.clientId ?? "",
      scopes: verified.scopes,
      expiresAt: verified.expiresAt,
    });
  };
