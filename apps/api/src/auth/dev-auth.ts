import { randomUUID } from "node:crypto";
import { ALL_SCOPES } from "@mcpsm/domain";
import { createLocalJWKSet, exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from "jose";
import { readOrCreate } from "../local-state/data-dir.js";
import { type AccessTokenVerifier, jwtAccessTokenVerifier } from "./access-token-verifier.js";

/** Issuer and audience of dev-auth tokens. */
export const DEV_ISSUER = "urn:mcpsm:dev-auth";
export const DEV_AUDIENCE = "mcpsm-api";
const KEY_FILE = "dev-auth-signing-key.json";

/** The dev-auth signing key of a data directory: an ES256 key pair made on first use. */
export const devSigningKey = async (
  dataDir: string,
): Promise<{ readonly privateJwk: JWK; readonly publicJwk: JWK }> => {
  const text = await readOrCreate(dataDir, KEY_FILE, async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const jwk = await exportJWK(privateKey);
    return JSON.stringify({ ...jwk, kid: randomUUID(), alg: "ES256", use: "sig" });
  });
  const privateJwk = JSON.parse(text) as JWK;
  const { d: _private, ...publicJwk } = privateJwk;
  return { privateJwk, publicJwk };
};

/** Dev-auth mode: tokens signed by the local key are verified, and the JWKS is published. */
export const devAuth = async (dataDir: string, tenantClaim: string) => {
  const { publicJwk } = await devSigningKey(dataDir);
  const jwks = { keys: [publicJwk] };
  const verifier: AccessTokenVerifier = jwtAccessTokenVerifier({
    keys: createLocalJWKSet(jwks),
    issuer: DEV_ISSUER,
    audience: DEV_AUDIENCE,
    tenantClaim,
  });
  return { verifier, jwks };
};

export interface DevTokenOptions {
  readonly subject: string;
  readonly scopes?: ReadonlyArray<string>;
  readonly ttlSeconds?: number;
}

/** Signs a dev-auth access token (default: every scope, one hour). */
export const mintDevToken = async (dataDir: string, options: DevTokenOptions): Promise<string> => {
  const { privateJwk } = await devSigningKey(dataDir);
  const key = await importJWK(privateJwk, "ES256");
  return new SignJWT({ scope: (options.scopes ?? ALL_SCOPES).join(" ") })
    .setProtectedHeader({ alg: "ES256", kid: privateJwk.kid ?? "", typ: "at+jwt" })
    .setIssuer(DEV_ISSUER)
    .setAudience(DEV_AUDIENCE)
    .setSubject(options.subject)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + (options.ttlSeconds ?? 3600))
    .setJti(randomUUID())
    .sign(key);
};
