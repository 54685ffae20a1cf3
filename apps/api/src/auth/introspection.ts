import type { Actor } from "@mcpsm/domain";
import { Unauthenticated, Unavailable } from "@mcpsm/domain/errors";
import type { OAuthAccessTokenVerifier, OAuthPrincipal } from "@mcpsm/mcp-runtime";
import { LRUCache } from "lru-cache";
import type { AccessTokenVerifier } from "./access-token-verifier.js";
import { scopesOf } from "./access-token-verifier.js";
import { tokenDigest } from "./token-digest.js";

// Opaque access tokens, checked by RFC 7662 token introspection at the authorization server. The service
// authenticates itself with client_secret_basic. An answer is cached for at most min(60 s, time left until the
// token's `exp`), keyed by the token's SHA-256 (the token itself is never kept). An introspection endpoint that
// cannot be reached, or that answers anything but a well-formed 200, makes the request 503: a token is never
// accepted without a positive answer.

export interface IntrospectionOptions {
  readonly url: URL;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Required `iss` when the answer names one. */
  readonly issuer: string;
  /** Must be in the answer's `aud` (management API); the MCP endpoint uses each server's URL instead. */
  readonly audience: string;
  readonly tenantClaim: string;
  /** Longest time an answer is reused (default 60 s); never beyond the token's `exp`. */
  readonly maxCacheMs?: number;
  /** Most answers kept (default 10,000; the least recently used go first). */
  readonly maxEntries?: number;
  /** Longest wait for the endpoint (default 5 s). */
  readonly timeoutMs?: number;
  /** The clock in milliseconds (tests move it); default Date.now. */
  readonly now?: () => number;
}

/** The introspection answer fields this service reads (RFC 7662 §2.2). */
type Answer = Readonly<Record<string, unknown>> & { readonly active: boolean };

/** Largest introspection answer read; anything bigger is not an answer this service trusts. */
const MAX_ANSWER_BYTES = 64 * 1024;

class EndpointFailure extends Error {}

/** `application/x-www-form-urlencoded` of a client credential, as RFC 6749 §2.3.1 wants before base64. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");

const readLimited = async (response: Response): Promise<string> => {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Array<Uint8Array> = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new EndpointFailure(`the introspection answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
};

/** What an active answer proves, for one expected audience; a string is the reason it proves nothing. */
const principalOf = (
  answer: Answer,
  options: IntrospectionOptions,
  audience: string,
  nowSeconds: number,
): (OAuthPrincipal & { readonly scopeSet: ReadonlySet<string> }) | string => {
  if (answer.active !== true) return "the access token is not active";
  const { exp, nbf, iss, aud } = answer;
  if (typeof exp !== "number") return "the access token has no expiry";
  if (exp <= nowSeconds) return "the access token has expired";
  if (nbf !== undefined && (typeof nbf !== "number" || nbf > nowSeconds)) return "the access token is not yet valid";
  if (iss !== undefined && iss !== options.issuer) return "the access token is from another issuer";
  const audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.includes(audience)) return "the access token is not meant for this service";
  const tokenType = answer.token_type;
  if (typeof tokenType === "string" && /refresh/i.test(tokenType)) return "a refresh token is not an access token";
  const tenant = answer[options.tenantClaim];
  if (typeof tenant !== "string" || tenant === "")
    return `the access token has no '${options.tenantClaim}' naming the tenant`;
  const scopeSet = scopesOf(answer);
  const clientId = typeof answer.client_id === "string" ? answer.client_id : undefined;
  const subject = typeof answer.sub === "string" && answer.sub !== "" ? answer.sub : undefined;
  return { tenant, subject, clientId, scopes: [...scopeSet], scopeSet, expiresAt: exp };
};

/** The management API's and the MCP endpoint's verifiers over one introspection client and cache. */
export const introspectionVerifiers = (options: IntrospectionOptions) => {
  const now = options.now ?? Date.now;
  const maxCacheMs = options.maxCacheMs ?? 60_000;
  const cache = new LRUCache<string, Answer>({
    max: options.maxEntries ?? 10_000,
    ttlAutopurge: false,
    ttlResolution: 0,
    // The cache's clock is the verifier's, so tests can move time for both.
    perf: { now },
  });
  const inFlight = new Map<string, Promise<Answer>>();
  const basic = `Basic ${Buffer.from(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`).toString("base64")}`;

  const ask = async (token: string): Promise<Answer> => {
    let response: Response;
    try {
      response = await fetch(options.url, {
        method: "POST",
        headers: {
          authorization: basic,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
        redirect: "manual",
        signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
      });
    } catch (error) {
      throw new EndpointFailure(`the introspection endpoint cannot be reached (${(error as Error).name})`);
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new EndpointFailure(`the introspection endpoint answered ${response.status}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readLimited(response));
    } catch (error) {
      if (error instanceof EndpointFailure) throw error;
      throw new EndpointFailure("the introspection answer is not JSON");
    }
    if (
      typeof parsed !== "object" ||
      parsed === null ||
      Array.isArray(parsed) ||
      typeof (parsed as Answer).active !== "boolean"
    )
      throw new EndpointFailure("the introspection answer has no boolean 'active'");
    return parsed as Answer;
  };

  /** The answer for `token`, from the cache when it is fresh; throws EndpointFailure. */
  const introspect = async (token: string): Promise<Answer> => {
    const key = tokenDigest(token);
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    let pending = inFlight.get(key);
    if (pending === undefined) {
      pending = ask(token).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    const answer = await pending;
    const untilExpiry = typeof answer.exp === "number" ? answer.exp * 1000 - now() : maxCacheMs;
    const ttl = Math.min(maxCacheMs, untilExpiry);
    if (ttl >= 1) cache.set(key, answer, { ttl });
    return answer;
  };

  /** The answer for `token`, or Unavailable when the endpoint cannot give one. */
  const answerFor = async (token: string): Promise<Answer | Unavailable> => {
    try {
      return await introspect(token);
    } catch (error) {
      return new Unavailable({
        detail: `the authorization server cannot check the access token right now: ${(error as Error).message}`,
      });
    }
  };

  const verifier: AccessTokenVerifier = {
    verify: async (token): Promise<Actor | Unauthenticated | Unavailable> => {
      const answer = await answerFor(token);
      if (answer instanceof Unavailable) return answer;
      const principal = principalOf(answer, options, options.audience, Math.floor(now() / 1000));
      if (typeof principal === "string") return new Unauthenticated({ detail: principal });
      return {
        tenant: principal.tenant,
        scopes: principal.scopeSet,
        sub: typeof answer.sub === "string" ? answer.sub : undefined,
        clientId: principal.clientId,
      };
    },
  };

  const mcpVerifier: OAuthAccessTokenVerifier = {
    verify: async (token, resource) => {
      const answer = await answerFor(token);
      if (answer instanceof Unavailable) return answer;
      const principal = principalOf(answer, options, resource, Math.floor(now() / 1000));
      if (typeof principal === "string") return new Unauthenticated({ detail: principal });
      const { scopeSet: _set, ...rest } = principal;
      return rest;
    },
  };

  return { verifier, mcpVerifier };
};
