import { Unauthenticated, type Unavailable } from "@mcpsm/domain/errors";
import type { OAuthAccessTokenVerifier } from "@mcpsm/domain/mcp";
import { Exit } from "effect";
import type { McpAuthentication } from "./mcp-authentication.js";

// OAuth access tokens for one MCP server (RFC 8707: the server's canonical URL is their audience), checked
// through the domain's port (`OAuthAccessTokenVerifier`). Whether the token's tenant may use the server is the
// domain's rule, applied once the server is known.

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
