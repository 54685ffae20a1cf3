import type { TenantRateDecision } from "@mcpsm/mcp-runtime";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import {
  BurstyRateLimiter,
  type IRateLimiterOptions,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import type { RateLimitRule, RateLimitSettings } from "../config/security-config.js";
import { newRedisClient } from "../redis/ioredis-client.js";

// Rate limits per client address and per tenant with rate-limiter-flexible. Each is a BurstyRateLimiter: a
// steady budget of `points` per window, and once that is spent a burst allowance of `burst` more per ten
// windows (the library's way to get a token bucket's "rate plus bucket size"). Counters live in this
// process's memory, or in Redis when REDIS_URL is set so every instance draws on the same budget; should
// Redis fail, each instance falls back to its own memory counters (the library's insurance limiter) rather
// than refusing or waving through every request.

export type RateLimitScope = "address" | "tenant";

/** The outcome of one request against one limit, with what the RateLimit-* headers say. */
export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly scope: RateLimitScope;
  /** Requests per window (the steady budget). */
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the budget grows again. */
  readonly resetSeconds: number;
  readonly windowSeconds: number;
}

export interface RateLimiter {
  readonly consume: (scope: RateLimitScope, key: string) => Promise<RateLimitDecision>;
  /** Resolves once the shared store answers (at once in memory), or after `timeoutMs` without it. */
  readonly ready: (timeoutMs: number) => Promise<boolean>;
  readonly close: () => Promise<void>;
}

type Limiter = Pick<BurstyRateLimiter, "consume">;

const build = (
  rule: RateLimitRule,
  prefix: string,
  store: (options: IRateLimiterOptions) => RateLimiterMemory | RateLimiterRedis,
): Limiter => {
  const steady = store({ keyPrefix: prefix, points: rule.points, duration: rule.windowSeconds });
  if (rule.burst === 0) return steady;
  const burst = store({ keyPrefix: `${prefix}:burst`, points: rule.burst, duration: rule.windowSeconds * 10 });
  return new BurstyRateLimiter(steady, burst);
};

/** The rate limiter of `settings`; undefined when rate limiting is off. */
export const createRateLimiter = (settings: RateLimitSettings, logger: Logger): RateLimiter | undefined => {
  if (!settings.enabled) return undefined;
  let redis: Redis | undefined;
  let store: (options: IRateLimiterOptions) => RateLimiterMemory | RateLimiterRedis = (options) =>
    new RateLimiterMemory(options);
  if (settings.redisUrl !== undefined) {
    // While Redis is away a command fails at once and the insurance limiter answers.
    const client = newRedisClient(settings.redisUrl, "commands");
    redis = client;
    let healthy = true;
    client.on("error", (error: Error) => {
      if (!healthy) return;
      healthy = false;
      logger.warn(
        { reason: error.message },
        "rate limits: Redis is unreachable; counting in this process until it is back",
      );
    });
    client.on("ready", () => {
      if (!healthy) logger.info("rate limits: Redis is reachable again");
      healthy = true;
    });
    store = (options) =>
      new RateLimiterRedis({
        ...options,
        storeClient: client,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ ...options, keyPrefix: `${options.keyPrefix}:insurance` }),
      });
  }
  const limiters: Record<RateLimitScope, { readonly rule: RateLimitRule; readonly limiter: Limiter }> = {
    address: { rule: settings.address, limiter: build(settings.address, `${settings.keyPrefix}:address`, store) },
    tenant: { rule: settings.tenant, limiter: build(settings.tenant, `${settings.keyPrefix}:tenant`, store) },
  };
  return {
    consume: async (scope, key) => {
      const { rule, limiter } = limiters[scope];
      const decision = (allowed: boolean, res: RateLimiterRes): RateLimitDecision => ({
        allowed,
        scope,
        limit: rule.points,
        remaining: Math.max(0, res.remainingPoints),
        resetSeconds: Math.max(allowed ? 0 : 1, Math.ceil(res.msBeforeNext / 1000)),
        windowSeconds: rule.windowSeconds,
      });
      try {
        return decision(true, await limiter.consume(key));
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decision(false, rejection);
        // Both the store and its insurance failed: a limiter fault must not take the API down with it.
        logger.error({ err: rejection }, "rate limits: the limiter failed; the request is let through");
        return {
          allowed: true,
          scope,
          limit: rule.points,
          remaining: rule.points,
          resetSeconds: 0,
          windowSeconds: rule.windowSeconds,
        };
      }
    },
    ready: async (timeoutMs) => {
      const client = redis;
      if (client === undefined || client.status === "ready") return true;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        client.once("ready", () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
    close: async () => {
      if (redis !== undefined) await redis.quit().catch(() => redis?.disconnect());
    },
  };
};

/** The RateLimit-* headers (IETF draft "RateLimit header fields for HTTP", draft-06 names) of a decision. */
export const rateLimitHeaders = (decision: RateLimitDecision): Record<string, string> => ({
  "RateLimit-Limit": String(decision.limit),
  "RateLimit-Remaining": String(decision.remaining),
  "RateLimit-Reset": String(decision.resetSeconds),
  "RateLimit-Policy": `${decision.limit};w=${decision.windowSeconds}`,
  ...(decision.allowed ? {} : { "Retry-After": String(decision.resetSeconds) }),
});

/** The per-tenant limit as the MCP runtime applies it (to the owner of the server called). */
export const tenantBudget =
  (limiter: RateLimiter) =>
  async (tenant: string): Promise<TenantRateDecision> => {
    const decision = await limiter.consume("tenant", tenant);
    return { allowed: decision.allowed, retryAfterSeconds: decision.resetSeconds, headers: rateLimitHeaders(decision) };
  };
