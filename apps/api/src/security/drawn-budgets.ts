import type { IncomingMessage } from "node:http";
import type { RateLimitDecision, RateLimiter, RateLimitScope } from "./rate-limit.js";

// A request's rate-limit budgets are drawn once. The kept-answer lane (http/kept-answer-lane.ts) draws them
// before it knows whether it answers; a request it then hands to the middleware stack (a refusal, an answer no
// longer kept) carries the decisions drawn, and the stack's limits use them instead of drawing again.

const drawn = new WeakMap<IncomingMessage, Partial<Record<RateLimitScope, RateLimitDecision>>>();

/** Notes a decision drawn for `req`, for the middleware stack to use when `req` is handed to it. */
export const noteDrawnBudget = (req: IncomingMessage, decision: RateLimitDecision): void => {
  drawn.set(req, { ...drawn.get(req), [decision.scope]: decision });
};

/** The decision of `scope` for `req`: the one drawn already, else one drawn now from `limiter`. */
export const drawBudget = (
  req: IncomingMessage,
  limiter: RateLimiter,
  scope: RateLimitScope,
  key: string,
): Promise<RateLimitDecision> | RateLimitDecision => drawn.get(req)?.[scope] ?? limiter.consume(scope, key);
