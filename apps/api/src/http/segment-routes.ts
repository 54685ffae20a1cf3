import { Router, type RouterOptions } from "@koa/router";
import type { Middleware } from "koa";

// @koa/router tests a request's path against every route's pattern, in order, on every request (some 85
// routes here). Every path a route matches starts with that route's first segment (none is a parameter), so
// the routes are split by it once: a request is matched against the routes of its own first segment only
// (/servers/…: 30), with the same outcome, Allow header, 405 and 501 as the whole router would give.

/** A path's first segment: `/servers/:id/tools` → `servers`, `/healthz` → `healthz`, `/` → ``. */
const firstSegment = (path: string): string => {
  const end = path.indexOf("/", 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
};

/** A router's routes, then (when none of them answered) its Allow/405/501 handling, as one middleware. */
const dispatchOf = (router: Router): Middleware => {
  const routes = router.routes() as unknown as Middleware;
  const allowed = router.allowedMethods() as unknown as Middleware;
  return (ctx, next) => routes(ctx, () => allowed(ctx, next));
};

/**
 * The routes of `router` as one middleware that matches a request against the routes of its path's first
 * segment only. Throws at start-up for a route whose first segment is not literal (a parameter, a pattern or
 * a path-less middleware would match paths of other segments).
 */
export const routesBySegment = (router: Router, options: RouterOptions): Middleware => {
  const routers = new Map<string, Router>();
  for (const layer of router.stack) {
    const segment = typeof layer.path === "string" && layer.path.startsWith("/") ? firstSegment(layer.path) : "*";
    if (/[:*(?+]/.test(segment)) throw new Error(`a route's first path segment must be literal: ${String(layer.path)}`);
    let routes = routers.get(segment);
    if (routes === undefined) {
      routes = new Router(options);
      routers.set(segment, routes);
    }
    routes.stack.push(layer);
  }
  const table = new Map([...routers].map(([segment, routes]) => [segment, dispatchOf(routes)]));
  // No route of that segment: an empty router's answer (nothing matched; 501 for a method it does not know).
  const none = dispatchOf(new Router(options));
  return (ctx, next) => (table.get(firstSegment(ctx.path)) ?? none)(ctx, next);
};
