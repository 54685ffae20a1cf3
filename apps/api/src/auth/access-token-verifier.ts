import type { Actor } from "@mcpsm/domain";
import { Unauthenticated, Unavailable } from "@mcpsm/domain/errors";
import { errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from "jose";
import { VerifiedTokenCache } from "./verified-token-cache.js";

/** Turns a bearer access token into the calling Actor, or the reason it cannot. */
export interface AccessTokenVerifier {
  readonly verify: (token: string) => Promise<Actor | Unauthenticated | Unavailable>;
  /**
   * What `token` already proved to `verify` and still proves (not expired), without verifying anything:
   * undefined when it was not verified before (then only `verify` can say). The kept-answer lane's check.
   */
  readonly verified?: (token: string) => Actor | undefined;
}

/** The only signature algorithms accepted (docs/api-rules.md §3): no HMAC, no `none`. */
export const ALLOWED_ALGORITHMS = ["RS256", "ES256", "EdDSA"];

/** Scopes from `scope` (space-separated) or `scp` (array or string). */
export const scopesOf = (payload: JWTPayload): ReadonlySet<string> => {
  const found = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === "string") for (const s of value.split(" ")) if (s !== "") found.add(s);
    if (Array.isArray(value)) for (const s of value) if (typeof s === "string" && s !== "") found.add(s);
  };
  add(payload.scope);
  add(payload.scp);
  return found;
};

/** The OAuth client a JWT access token was issued to: `client_id` (RFC 9068), else `azp`. */
export const clientIdOf = (payload: JWTPayload): string | undefined =>
  typeof payload.client_id === "string" ? payload.client_id : typeof payload.azp === "string" ? payload.azp : undefined;

export interface JwtVerifierOptions {
  readonly keys: JWTVerifyGetKey;
  readonly issuer: string;
  readonly audience: string;
  /** The claim naming the tenant (default `sub`). */
  readonly tenantClaim: string;
}

const reject = (detail: string) => new Unauthenticated({ detail });

/**
 * True when jose failed to get the key set (not a fault of the token): a timeout, a key set that is not valid
 * JSON Web Key Set, or the plain JOSEError jose throws for a non-200 answer or unparsable JSON.
 */
export const isKeySetFailure = (error: unknown): boolean =>
  error instanceof errors.JWKSTimeout ||
  error instanceof errors.JWKSInvalid ||
  (error instanceof errors.JOSEError && error.constructor === errors.JOSEError) ||
  !(error instanceof errors.JOSEError);

/**
 * Verifies JWT access tokens: signature by the key set, `iss`, `aud`, `exp` (required) and `nbf`. A token
 * verified once is not verified again until its `exp` (verified-token-cache.ts).
 */
export const jwtAccessTokenVerifier = (options: JwtVerifierOptions): AccessTokenVerifier => {
  const verified = new VerifiedTokenCache<Actor>();
  return {
    verify: async (token) => verified.get(token) ?? verifyJwt(token, options, verified),
    verified: (token) => verified.get(token),
  };
};

const verifyJwt = async (
  token: string,
  options: JwtVerifierOptions,
  verified: VerifiedTokenCache<Actor>,
): Promise<Actor | Unauthenticated | Unavailable> => {
  try {
    const { payload } = await jwtVerify(token, options.keys, {
      issuer: options.issuer,
      audience: options.audience,
      algorithms: ALLOWED_ALGORITHMS,
      requiredClaims: ["exp"],
    });
    const tenant = payload[options.tenantClaim];
    if (typeof tenant !== "string" || tenant === "")
      return reject(`the access token has no '${options.tenantClaim}' claim naming the tenant`);
    const actor: Actor = { tenant, scopes: scopesOf(payload), sub: payload.sub, clientId: clientIdOf(payload) };
    // `exp` is required, so present and a number here.
    verified.set(token, actor, (payload.exp ?? 0) * 1000);
    return actor;
  } catch (error) {
    if (error instanceof errors.JWTExpired) return reject("the access token has expired");
    // The key set fetch failing (network, an error answer, garbage) is not the caller's fault.
    if (isKeySetFailure(error))
      return new Unavailable({ detail: "the authorization server's key set could not be fetched" });
    return reject("the access token is invalid");
  }
};
