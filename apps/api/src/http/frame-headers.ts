import { SECURITY_HEADERS } from "../security/http-guards.js";
import { type RateLimitDecision, rateLimitHeaders } from "../security/rate-limit.js";

/**
 * The headers the request frame gives an answer, in the order the stack sets them (`assignRequestId`,
 * `setSecurityHeaders`, then the shown budget's RateLimit-*), as one flat name/value list for `writeHead`:
 * Node then keeps no per-header record and lower-cases no name.
 */
export const frameHeaders = (requestId: string, budget: RateLimitDecision | undefined): Array<string> => {
  const headers = ["X-Request-Id", requestId];
  for (const [name, value] of SECURITY_HEADERS) headers.push(name, value);
  if (budget !== undefined) {
    const shown = rateLimitHeaders(budget);
    for (const name in shown) headers.push(name, shown[name] as string);
  }
  return headers;
};
