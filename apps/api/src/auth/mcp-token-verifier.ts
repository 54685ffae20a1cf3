import { Unauthenticated, Unavailable } from "@mcpsm/domain/errors";
import type { OAuthAccessTokenVerifier } from "@mcpsm/mcp-runtime";
import { type JWTVerifyGetKey, jwtVerify } from "jose";
import { ALLOWED_ALGORITHMS, isKeySetFailure, scopesOf } from "./access-token-verifier.js";

export interface McpTokenVerifierOptions {
  readonly keys: JWTVerifyGetKey;
  readonly issuer: string;
  readonly tenantClaim: string;
}

/**
 * OAuth access tokens for the MCP endpoint: the same authorization server (keys, issuer, algorithms, `exp`
 * required) as the management API, but the audience must be the MCP server's canonical URL (RFC 8707), so a
 * management token, or a token for another server, is refused.
 */
export const mcpAccessTokenVerifier = (options: McpTokenVerifierOptions): OAuthAccessTokenVerifier => ({
  verify: async (token, resource) => {
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
      const clientId =
        typeof payload.client_id === "string"
          ? payload.client_id
          : typeof payload.azp === "string"
            ? payload.azp
            : undefined;
      return { tenant, clientId, scopes: [...scopesOf(payload)], expiresAt: payload.exp };
    } catch (error) {
      // The key set fetch failing (network, an error answer, garbage) is not the caller's fault.
      if (isKeySetFailure(error))
        return new Unavailable({ detail: "the authorization server's key set could not be fetched" });
      return new Unauthenticated({ detail: "the access token is invalid, expired or not issued for this server" });
    }
  },
});
