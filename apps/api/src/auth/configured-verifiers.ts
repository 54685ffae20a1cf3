import { Redacted } from "effect";
import { createLocalJWKSet, createRemoteJWKSet, type JWK } from "jose";
import type { Logger } from "pino";
import type { AccessTokenVerifier } from "./access-token-verifier.js";
import { jwtAccessTokenVerifier } from "./access-token-verifier.js";
import { DEV_ISSUER, devAuth } from "./dev-auth.js";
import { mcpAccessTokenVerifier } from "./mcp-token-verifier.js";
import { introspectionVerifiers } from "./introspection.js";
import type { AppConfig } from "../config/app-config.js";

// The verifiers of management and MCP access tokens that the configured auth mode names (introspection, JWT
// from an issuer, or dev auth), and the authorization servers the service advertises.

export const accessTokenVerifier = async (config: AppConfig, dataDir: string, logger: Logger) => {
  if (config.auth.mode === "introspection") {
    const { verifier, mcpVerifier } = introspectionVerifiers({
      url: config.auth.introspectionUrl,
      clientId: config.auth.clientId,
      clientSecret: Redacted.value(config.auth.clientSecret),
      issuer: config.auth.issuer,
      audience: config.auth.audience,
      tenantClaim: config.auth.tenantClaim,
    });
    const authorizationServers = [config.auth.issuer];
    return { verifier, mcpVerifier, authorizationServers, devJwks: undefined as { keys: JWK[] } | undefined };
  }
  if (config.auth.mode === "jwks") {
    // jose caches the key set and refetches it when a token names an unknown `kid` (key rotation at the
    // authorization server), at most once per cooldown, so a flood of made-up kids cannot hammer it.
    const keys = createRemoteJWKSet(config.auth.jwksUrl, {
      cooldownDuration: config.auth.jwksCooldownMs ?? 30_000,
      cacheMaxAge: 10 * 60_000,
      timeoutDuration: 5_000,
    });
    const verifier: AccessTokenVerifier = jwtAccessTokenVerifier({
      keys,
      issuer: config.auth.issuer,
      audience: config.auth.audience,
      tenantClaim: config.auth.tenantClaim,
    });
    // MCP clients get tokens from the same authorization server, with the MCP server's URL as audience.
    const mcpVerifier = mcpAccessTokenVerifier({
      keys,
      issuer: config.auth.issuer,
      tenantClaim: config.auth.tenantClaim,
    });
    const authorizationServers = [config.auth.issuer];
    return { verifier, mcpVerifier, authorizationServers, devJwks: undefined as { keys: JWK[] } | undefined };
  }
  const dev = await devAuth(dataDir, config.auth.tenantClaim);
  logger.warn(
    { dataDir },
    "dev-auth mode: no AUTH_* settings, so tokens signed by the local key in DATA_DIR are accepted (mint one with `./run token`); do not expose this instance",
  );
  const keys = createLocalJWKSet(dev.jwks);
  const mcpVerifier = mcpAccessTokenVerifier({ keys, issuer: DEV_ISSUER, tenantClaim: config.auth.tenantClaim });
  return { verifier: dev.verifier, mcpVerifier, authorizationServers: [] as Array<string>, devJwks: dev.jwks };
};
