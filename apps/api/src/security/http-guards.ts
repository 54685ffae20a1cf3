import cors from "@koa/cors";
import { rateLimitedResponse } from "@mcpsm/mcp-runtime";
import type { Middleware } from "koa";
import { sendProblem } from "../http/send-problem.js";
import { drawBudget } from "./drawn-budgets.js";
import { type RateLimitDecision, type RateLimiter, rateLimitHeaders } from "./rate-limit.js";

/** Paths that are never rate limited: liveness and readiness probes must answer whatever the traffic. */
const PROBES = new Set(["/healthz", "/readyz"]);

/**
 * Headers every response carries: no sniffing, no caching of API data, no framing, no referrer, and a CSP that
 * forbids everything for JSON answers (the /docs page sets its own). Koa sends no X-Powered-By.
 */
export const setSecurityHeaders = (ctx: Parameters<Middleware>[0]): void => {
  for (const [name, value] of SECURITY_HEADERS) ctx.res.setHeader(name, value);
};

/** The headers every answer carries (`setSecurityHeaders`), in the order they are set. */
export const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["X-Content-Type-Options", "nosniff"],
  ["Cache-Control", "no-store"],
  ["X-Frame-Options", "DENY"],
  ["Referrer-Policy", "no-referrer"],
  ["Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"],
  ["Cross-Origin-Resource-Policy", "same-origin"],
];

/**
 * Sets string headers on the Node response itself: what `ctx.set` does for a string value, without the
 * arrays and closures Koa 3's `set` allocates per header (~18 headers on every answer). Headers are not
 * sent yet wherever this is called (before the answer is written).
 */
export const setHeaders = (ctx: Parameters<Middleware>[0], headers: Readonly<Record<string, string>>): void => {
  for (const name in headers) ctx.res.setHeader(name, headers[name] as string);
};

/** Answers a rate-limited request: 429 RESOURCE_EXHAUSTED with Retry-After and RateLimit-* headers. */
const tooMany = (ctx: Parameters<Middleware>[0], headers: Record<string, string>, limit: "address" | "tenant") => {
  const what = limit === "address" ? "from this address" : "for this tenant";
  // For the refusal counters (operations/metrics.ts).
  ctx.state.refusal = { kind: "rate_limit", label: limit };
  return sendProblem(ctx, {
    status: 429,
    code: "RESOURCE_EXHAUSTED",
    title: "Too Many Requests",
    detail: `too many requests ${what}; retry after ${headers["Retry-After"]} s`,
    headers,
  });
};

/** Answers a rate-limited MCP request the way MCP clients read it: 429, Retry-After, a JSON-RPC error body. */
const tooManyForMcp = async (ctx: Parameters<Middleware>[0], headers: Record<string, string>, what: string) => {
  const answer = rateLimitedResponse(
    `too many requests ${what}; retry after ${headers["Retry-After"]} s`,
    Number(headers["Retry-After"]),
    ctx.path,
  );
  ctx.status = answer.status;
  ctx.set(headers);
  ctx.type = answer.headers.get("content-type") ?? "application/json";
  ctx.body = await answer.text();
};

/**
 * The per-client-address limit, before anything else runs (so floods of bad credentials are limited too).
 * Paths for which `isMcp` holds are answered in the MCP endpoint's JSON-RPC shape.
 */
export const addressRateLimit =
  (limiter: RateLimiter, isMcp: (path: string) => boolean = () => false): Middleware =>
  async (ctx, next) => {
    if (PROBES.has(ctx.path)) return next();
    const decision = await drawBudget(ctx.req, limiter, "address", addressOf(ctx));
    if (!decision.allowed) {
      const headers = rateLimitHeaders(decision);
      return isMcp(ctx.path) ? tooManyForMcp(ctx, headers, "from this address") : tooMany(ctx, headers, "address");
    }
    showAddressBudget(ctx, decision);
    return next();
  };

/** The key of the per-address limit: the client's address (Koa's `ctx.ip`, proxies as configured). */
export const addressOf = (ctx: Parameters<Middleware>[0]): string => ctx.ip || "unknown";

/** Shows an allowed request's address budget in its RateLimit-* headers. */
export const showAddressBudget = (ctx: Parameters<Middleware>[0], decision: RateLimitDecision): void => {
  ctx.state.rateLimit = decision;
  setHeaders(ctx, rateLimitHeaders(decision));
};

/** The budget an answer's RateLimit-* headers show: the tenant's when it is the lower (or the only) one. */
export const shownBudget = (
  address: RateLimitDecision | undefined,
  tenant: RateLimitDecision | undefined,
): RateLimitDecision | undefined =>
  address === undefined || (tenant !== undefined && tenant.remaining <= address.remaining) ? tenant : address;

/** Shows an allowed request's tenant budget in its RateLimit-* headers when it is the lower of the two. */
export const showTenantBudget = (ctx: Parameters<Middleware>[0], decision: RateLimitDecision): void => {
  const address = ctx.state.rateLimit as RateLimitDecision | undefined;
  if (shownBudget(address, decision) === decision) setHeaders(ctx, rateLimitHeaders(decision));
};

/** The per-tenant limit, once the caller is known; the headers then show whichever budget is lower. */
export const consumeTenantBudget = async (
  ctx: Parameters<Middleware>[0],
  limiter: RateLimiter,
  tenant: string,
): Promise<boolean> => {
  const decision = await drawBudget(ctx.req, limiter, "tenant", tenant);
  if (!decision.allowed) {
    tooMany(ctx, rateLimitHeaders(decision), "tenant");
    return false;
  }
  showTenantBudget(ctx, decision);
  return true;
};

/**
 * CORS for the listed origins only (none by default: browsers then refuse cross-origin reads). Bearer tokens,
 * never cookies, so no credentials mode.
 */
export const corsFor = (origins: ReadonlyArray<string>): Middleware | undefined => {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  return cors({
    origin: (ctx) => {
      const origin = ctx.get("Origin");
      return allowed.has(origin) ? origin : "";
    },
    allowMethods: ["GET", "POST", "PATCH", "DELETE"],
    allowHeaders: ["Authorization", "Content-Type", "If-Match", "X-Request-Id"],
    exposeHeaders: [
      "ETag",
      "Location",
      "X-Request-Id",
      "Retry-After",
      "WWW-Authenticate",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "RateLimit-Policy",
    ],
    maxAge: 600,
    credentials: false,
    keepHeadersOnError: true,
  });
};
