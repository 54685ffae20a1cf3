import { Unauthenticated, Unavailable } from "@mcpsm/domain/errors";
import type { OAuthAccessTokenVerifier, OAuthPrincipal } from "@mcpsm/mcp-runtime";
import { type JWTVerifyGetKey, jwtVerify } from "jose";
import { ALLOWED_ALGORITHMS, clientIdOf, isKeySetFailure, scopesOf } from "./access-token-verifier.js";
import { VerifiedTokenCache } from "./verified-token-cache.js";

export interface McpTokenVerifierOptions {
  readonly keys: JWTVerifyGetKey;
  readonly issuer: string;
  readonly tenantClaim: string;
}

/**
 * OAuth access tokens for the MCP endpoint: the same authorization server (keys, issuer, algorithms, `exp`
 * required) as the management API, but the audience must be the MCP server's canonical URL (RFC 8707), so a
 * management token, or a token for another server, is refused. A token verified for a resource is not
 * verified again for it until its `exp` (verified-token-cache.ts).
 */
export const mcpAccessTokenVerifier = (options: McpTokenVerifierOptions): OAuthAccessTokenVerifier => {
  const verified = new VerifiedTokenCache<OAuthPrincipal>();
  return {
    verify: async (token, resource) => {
      // The audience is the resource: a token is kept per resource it was verified for.
      const key = `${resource} ${token}`;
      return (
        verified.get(key) ??
        verifyForResource(token, resource, options, (principal, expiresAtMs) =>
          verified.set(key, principal, expiresAtMs),
        )
      );
    },
  };
};

const verifyForResource = async (
  token: string,
  resource: string,
  options: McpTokenVerifierOptions,
  keep: (principal: OAuthPrincipal, expiresAtMs: number) => void,
): Promise<OAuthPrincipal | Unauthenticated | Unavailable> => {
  try {
    const { payload } = await jwtVerify(token, options.keys, {
      issuer: options.issuer,
      audience: resource,
      algorithms: ALLOWED_ALGORITHMS,
      requiredClaims: ["exp"],
    });
    const tenant = payload[options.tenantClaim];
    if (typeof tenant !== "string" || tenant === "")
      return new Unauthenticated({ detail: `the access token has no '${options.tenantClaim}' naming the tenant` });
    const clientId = clientIdOf(payload);
    const subject = typeof payload.sub === "string" && payload.sub !== "" ? payload.sub : undefined;
    const principal: OAuthPrincipal = {
      tenant,
      subject,
      clientId,
      scopes: [...scopesOf(payload)],
      expiresAt: payload.exp,
    };
    keep(principal, (payload.exp ?? 0) * 1000);
    return principal;
  } catch (error) {
    // The key set fetch failing (network, an error answer, garbage) is not the caller's fault.
    if (isKeySetFailure(error))
      return new Unavailable({ detail: "the authorization server's key set could not be fetched" });
    return new Unauthenticated({ detail: "the access token is invalid, expired or not issued for this server" });
  }
};
