import { Config, ConfigError, Either, Option } from "effect";

// The abuse-resistance settings: rate limits (memory or Redis), CORS, and the HTTP server's limits. Every
// field has a default, so a configuration built in code may leave the whole group out.

/** One rate limit: `points` requests per `windowSeconds`, plus a burst of `burst` more per 10 windows. */
export interface RateLimitRule {
  readonly points: number;
  readonly windowSeconds: number;
  readonly burst: number;
}

export interface RateLimitSettings {
  readonly enabled: boolean;
  /** Per tenant (the access token's tenant), counted after authentication. */
  readonly tenant: RateLimitRule;
  /** Per client address, counted before authentication (so floods of bad tokens are limited too). */
  readonly address: RateLimitRule;
  /** Share the counters across instances through this Redis server; unset: in this process's memory. */
  readonly redisUrl?: string | undefined;
  /** Prefix of the Redis keys (instances sharing a budget use the same prefix). */
  readonly keyPrefix: string;
}

export interface HttpLimits {
  /** Time to receive a request's headers (slow-loris). */
  readonly headersTimeoutMs: number;
  /** Time to receive a whole request, body included. */
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Largest request head (request line and headers); larger ones answer 431. */
  readonly maxHeaderBytes: number;
  /** Number of proxies in front of the service whose X-Forwarded-For is trusted (0: none, use the peer). */
  readonly trustProxyHops: number;
}

export interface SecuritySettings {
  readonly rateLimit: RateLimitSettings;
  /** Origins allowed to call the API from a browser (CORS); empty: CORS off. */
  readonly corsOrigins: ReadonlyArray<string>;
  readonly http: HttpLimits;
}

export const DEFAULT_SECURITY_SETTINGS: SecuritySettings = {
  rateLimit: {
    enabled: true,
    tenant: { points: 1200, windowSeconds: 60, burst: 600 },
    address: { points: 3000, windowSeconds: 60, burst: 1500 },
    keyPrefix: "mcpsm:rl",
  },
  corsOrigins: [],
  http: {
    headersTimeoutMs: 20_000,
    requestTimeoutMs: 60_000,
    keepAliveTimeoutMs: 5_000,
    maxHeaderBytes: 16 * 1024,
    trustProxyHops: 0,
  },
};

/** A whole-number setting of at least `min`, `fallback` when unset. */
export const whole = (name: string, fallback: number, min = 1) =>
  Config.integer(name).pipe(
    Config.validate({ message: `must be a whole number of at least ${min}`, validation: (n) => n >= min }),
    Config.withDefault(fallback),
  );

const rule = (scope: "TENANT" | "ADDRESS", fallback: RateLimitRule) =>
  Config.all({
    points: whole(`RATE_LIMIT_${scope}_POINTS`, fallback.points),
    windowSeconds: whole(`RATE_LIMIT_${scope}_WINDOW_SECONDS`, fallback.windowSeconds),
    burst: whole(`RATE_LIMIT_${scope}_BURST`, fallback.burst, 0),
  });

const redisUrl = Config.option(
  Config.string("REDIS_URL").pipe(
    Config.mapOrFail((value) => {
      try {
        const url = new URL(value);
        if (url.protocol === "redis:" || url.protocol === "rediss:") return Either.right(value);
      } catch {}
      return Either.left(ConfigError.InvalidData(["REDIS_URL"], "must be a redis:// or rediss:// URL"));
    }),
  ),
).pipe(Config.map(Option.getOrUndefined));

/** An origin as browsers send it: scheme, host and port, nothing else. */
const origins = Config.option(Config.string("CORS_ORIGINS")).pipe(
  Config.map(Option.getOrElse(() => "")),
  Config.mapOrFail((value) => {
    const items = value
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
    for (const item of items) {
      let ok = false;
      try {
        const url = new URL(item);
        ok = (url.protocol === "https:" || url.protocol === "http:") && url.origin === item;
      } catch {}
      if (!ok)
        return Either.left(
          ConfigError.InvalidData(
            ["CORS_ORIGINS"],
            `'${item}' is not an origin: give comma-separated origins such as https://app.example.com (no path, no '*')`,
          ),
        );
    }
    return Either.right(items as ReadonlyArray<string>);
  }),
);

const d = DEFAULT_SECURITY_SETTINGS;

/** RATE_LIMIT_*, REDIS_URL, CORS_ORIGINS, HTTP_* and TRUST_PROXY_HOPS. */
export const securityConfig: Config.Config<SecuritySettings> = Config.all({
  rateLimit: Config.all({
    enabled: Config.boolean("RATE_LIMIT_ENABLED").pipe(Config.withDefault(true)),
    tenant: rule("TENANT", d.rateLimit.tenant),
    address: rule("ADDRESS", d.rateLimit.address),
    redisUrl,
    keyPrefix: Config.nonEmptyString("RATE_LIMIT_KEY_PREFIX").pipe(Config.withDefault(d.rateLimit.keyPrefix)),
  }),
  corsOrigins: origins,
  http: Config.all({
    headersTimeoutMs: whole("HTTP_HEADERS_TIMEOUT_MS", d.http.headersTimeoutMs),
    requestTimeoutMs: whole("HTTP_REQUEST_TIMEOUT_MS", d.http.requestTimeoutMs),
    keepAliveTimeoutMs: whole("HTTP_KEEP_ALIVE_TIMEOUT_MS", d.http.keepAliveTimeoutMs),
    maxHeaderBytes: whole("HTTP_MAX_HEADER_BYTES", d.http.maxHeaderBytes, 1024),
    trustProxyHops: whole("TRUST_PROXY_HOPS", d.http.trustProxyHops, 0),
  }),
});
