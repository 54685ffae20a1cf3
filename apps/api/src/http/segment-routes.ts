import { type Layer, Router, type RouterOptions } from "@koa/router";
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

/**
 * A router's routes, then (when none of them answered) its Allow/405/501 handling, as one middleware. A
 * request that exactly one route of one handler answers (nearly all: a path matches one layer per method)
 * is handed to that handler here, with the context the router would have given it (the layers matched, the
 * route, its decoded params): @koa/router would compose a fresh chain for it and log through `debug` for
 * every layer it tests. Anything else (no route, a path-less middleware, several handlers) goes to the router.
 */
const dispatchOf = (router: Router): Middleware => {
  const routes = router.routes() as unknown as Middleware;
  const allowed = router.allowedMethods() as unknown as Middleware;
  const layers = router.stack;
  return (ctx, next) => {
    const path = ctx.path;
    const method = ctx.method.toUpperCase();
    const matched: Array<Layer> = [];
    let route: Layer | undefined;
    let runs = 0;
    for (const layer of layers) {
      if (!layer.match(path)) continue;
      matched.push(layer);
      if (layer.methods.length === 0 || layer.methods.includes(method)) {
        runs += 1;
        route = layer;
      }
    }
    const handler = route?.stack.length === 1 && route.methods.length > 0 ? route.stack[0] : undefined;
    if (route === undefined || handler === undefined || runs !== 1) return routes(ctx, () => allowed(ctx, next));
    // What @koa/router's dispatch and its per-layer step set before calling a route's handler.
    const routed = ctx as typeof ctx & Record<string, unknown>;
    if (Array.isArray(routed.matched)) routed.matched.push(...matched);
    else routed.matched = matched;
    routed.router = router;
    routed.routeMatched = true;
    routed._matchedRoute = route.path;
    if (route.name) routed._matchedRouteName = route.name;
    routed.captures = route.captures(path);
    const params = route.params(path, routed.captures as Array<string>, ctx.params);
    (ctx.request as typeof ctx.request & { params: typeof params }).params = params;
    ctx.params = params;
    routed.routerPath = route.path;
    routed.routerName = route.name || undefined;
    return handler(ctx as never, () => allowed(ctx, next));
  };
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
