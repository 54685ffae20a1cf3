import type { Unauthenticated, Unavailable } from "@mcpsm/domain/errors";
import { SERVER_TOKEN_PREFIX } from "@mcpsm/domain/mcp";
import { bearerToken } from "@mcpsm/domain/schemas";
import { Exit } from "effect";
import { NoCredential } from "../error-mapping.js";
import type { PublicSite } from "../http/public-url.js";
import type { EffectRunner } from "@mcpsm/upstream-http";
import type { McpAuthentication } from "./mcp-authentication.js";
import type { OAuthAccessTokenVerifier } from "@mcpsm/domain/mcp";
import { oauthAuth } from "./oauth-auth.js";
import { serverTokenAuth } from "./server-token-auth.js";

// The bearer token of an MCP request, checked by the scheme its form names: `mcps_…` is a server token,
// anything else an OAuth access token for the server's URL.

export type Authenticate = (
  /** The request's Authorization header (null when absent). */
  header: string | null,
  serverId: string,
) => Promise<Exit.Exit<McpAuthentication, NoCredential | Unauthenticated | Unavailable>>;

/** Authenticates MCP requests with server tokens, and OAuth access tokens when a verifier is given. */
export const authenticator = (
  runner: EffectRunner,
  site: PublicSite,
  oauth: OAuthAccessTokenVerifier | undefined,
): Authenticate => {
  const byServerToken = serverTokenAuth(runner);
  const byOAuth = oauthAuth(oauth);
  return async (header, serverId) => {
    if (header === null || header === "") return Exit.fail(new NoCredential());
    const token = bearerToken(header);
    if (typeof token !== "string") return Exit.fail(token);
    return token.startsWith(SERVER_TOKEN_PREFIX)
      ? byServerToken(serverId, token)
      : byOAuth(token, site.resourceUrl(serverId));
  };
};

/** The server token (`mcps_…`) an Authorization header carries; undefined for any other credential. */
export const serverTokenOf = (header: string): string | undefined => {
  const token = bearerToken(header);
  return typeof token === "string" && token.startsWith(SERVER_TOKEN_PREFIX) ? token : undefined;
};
