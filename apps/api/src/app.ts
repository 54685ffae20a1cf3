import type { IncomingMessage, ServerResponse } from "node:http";
import { mountApprovalPages } from "./approvals/approval-pages.js";
import { Router } from "@koa/router";
import type { McpRuntime } from "@mcpsm/mcp-runtime";
import Koa, { type Middleware } from "koa";
import type { JWK } from "jose";
import { mountApiDocs } from "./http/api-docs.js";
import { withMcpFrame } from "./http/mcp-frame.js";
import { type ConsoleOAuth, mountConsole } from "./http/console-page.js";
import type { DecidedApproval } from "./operations/approval-metrics.js";
import { type KeptRoute, withKeptAnswerLane } from "./http/kept-answer-lane.js";
import { keptAnswersOf, type OperationDeps, operationMiddleware } from "./http/operation-middleware.js";
import { httpProblems } from "./http/problem-response.js";
import { callTail } from "./http/call-tail.js";
import { requestFrame } from "./http/request-frame.js";
import { ROUTES } from "./http/route-table.js";
import { routesBySegment } from "./http/segment-routes.js";
import { sendProblem } from "./http/send-problem.js";
import { addressRateLimit, corsFor } from "./security/http-guards.js";
import { type CallerCredentialPages, mountCallerCredentials } from "./http/caller-credential-routes.js";

export interface AppDeps extends OperationDeps {
  /** True when the store answers; drives /readyz. */
  readonly ready: () => Promise<boolean>;
  /** The dev-auth key set to publish at /.well-known/jwks.json, in dev-auth mode only. */
  readonly devJwks?: { readonly keys: ReadonlyArray<JWK> };
  /** The service's own OAuth authorization server for its MCP endpoints (`/oauth/*`, discovery), when on. */
  readonly oauthServer?: NodeEndpoint;
  /** The MCP endpoint: `/mcp/{serverId}` and its protected resource metadata (no management scope). */
  readonly mcp?: Pick<McpRuntime, "matches" | "handleNode">;
  /** The OAuth 2.0 authorization server the OpenAPI document names (`{authUrl}/oauth2/auth`, `/oauth2/token`). */
  readonly authUrl?: string;
  /** The web console's authorization code sign-in (absent: sign-in by pasted token only). */
  readonly consoleOAuth?: ConsoleOAuth;
  /** Origins allowed by CORS (none: CORS off). */
  readonly corsOrigins?: ReadonlyArray<string>;
  /** Proxies in front whose X-Forwarded-For names the client (0: the peer address is the client). */
  readonly trustProxyHops?: number;
  /** Told of each decision made on the approval page (the metrics; the API's are observed in `observe`). */
  readonly approvalDecided?: (approval: DecidedApproval) => void;
  /** Observes every request (metrics, traces): the outermost middleware. */
  readonly observe?: ReadonlyArray<Middleware>;
  /**
   * Records a request the kept-answer lane answered, as `observe` would have (the metrics' `observeRequest`;
   * a no-op without metrics). Absent: no lane, every request runs the middleware stack (e.g. with traces on,
   * whose spans are a middleware's).
   */
  readonly observeKeptAnswer?: (ctx: Parameters<Middleware>[0], startMs: number) => void;
  /**
   * The public consent pages of upstream OAuth (docs/api-rules.md §13): `GET /oauth2/authorize` and
   * `GET /oauth2/callback`, answered without a management token.
   */
  readonly callerCredentials?: CallerCredentialPages;
  readonly upstreamConsent?: {
    readonly authorize: (query: URLSearchParams) => Promise<ConsentPage>;
    /** `requestId` is the request's (X-Request-Id), for the audit event of the connection it makes. */
    readonly callback: (query: URLSearchParams, requestId: string) => Promise<ConsentPage>;
  };
}

/** An HTML page of the consent flow. */
export interface ConsentPage {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** How long /readyz waits for the database before answering 503, so load balancers can act quickly. */
export const READY_TIMEOUT_MS = 2_000;

/** The OAuth authorization server's metadata documents (when the service is one). */
const DISCOVERY = new Set(["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]);

/** A part that answers some paths on the raw Node request and response itself. */
interface NodeEndpoint {
  readonly matches: (path: string) => boolean;
  readonly handleNode: (req: IncomingMessage, res: ServerResponse) => unknown;
}

/** Hands a request on one of a Node endpoint's paths (the MCP runtime, the OAuth server) to it. */
const handOver = async (endpoint: NodeEndpoint, ctx: Parameters<Middleware>[0]): Promise<void> => {
  // Bounded labels for the metrics: templates, the fixed discovery paths, or the OAuth server's prefix.
  ctx.state.routeTemplate = ctx.path.startsWith("/mcp/")
    ? "/mcp/{serverId}"
    : ctx.path.startsWith("/.well-known/oauth-protected-resource/")
      ? "/.well-known/oauth-protected-resource/mcp/{serverId}"
      : DISCOVERY.has(ctx.path)
        ? ctx.path
        : "/oauth/*";
  ctx.respond = false;
  await endpoint.handleNode(ctx.req, ctx.res);
};

/**
 * The Node endpoints, in order (the OAuth server, then the MCP runtime), as one plain function: a management
 * request passes through it with one call, no async frame or promise of its own per endpoint. The discovery
 * documents are GET-only resources of the service's document (the rest is oidc-provider's).
 */
const nodeEndpoints = (oauthServer: NodeEndpoint | undefined, mcp: NodeEndpoint | undefined): Middleware => {
  const endpoints = [oauthServer, mcp].filter((e): e is NodeEndpoint => e !== undefined);
  return (ctx, next) => {
    const path = ctx.path;
    if (oauthServer !== undefined && DISCOVERY.has(path) && ctx.method !== "GET" && ctx.method !== "HEAD")
      return sendProblem(ctx, httpProblems.methodNotAllowed(ctx.method, "GET, HEAD"));
    for (const endpoint of endpoints) if (endpoint.matches(path)) return handOver(endpoint, ctx);
    return next();
  };
};

/**
 * Unknown paths and wrong methods answer in the problem shape too. A literal path that a parametric route
 * also matches (`/providers/import` and `/providers/:id`) answers only its own methods: without this,
 * `GET /providers/import` would reach getProvider (400, a malformed id) and a wrong method's `Allow` would
 * list the parametric route's methods. One middleware for both: one async frame per request, not two.
 */
const unmatched = (): Middleware => {
  const parametric = ROUTES.filter((r) => r.path.includes(":")).map(
    (r) => new RegExp(`^${r.path.replace(/:[^/]+/g, "[^/]+")}$`),
  );
  const shadowed = new Map<string, Array<string>>();
  for (const route of ROUTES)
    if (!route.path.includes(":") && parametric.some((pattern) => pattern.test(route.path)))
      shadowed.set(route.path, [...(shadowed.get(route.path) ?? []), route.method]);
  return async (ctx, next) => {
    const allowed = shadowed.get(ctx.path);
    if (allowed !== undefined && !allowed.includes(ctx.method))
      return sendProblem(ctx, httpProblems.methodNotAllowed(ctx.method, allowed.join(", ")));
    await next();
    // A plain OPTIONS (not a CORS preflight, which CORS answers before this) is a method no route documents.
    if (
      ctx.method === "OPTIONS" &&
      ctx.status === 200 &&
      (ctx.body === undefined || ctx.body === null || ctx.body === "")
    )
      return sendProblem(ctx, httpProblems.methodNotAllowed(ctx.method, ctx.response.get("Allow") || ""));
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 404) sendProblem(ctx, httpProblems.notFound(ctx.path));
    else if (ctx.status === 405 || ctx.status === 501)
      sendProblem(ctx, httpProblems.methodNotAllowed(ctx.method, ctx.response.get("Allow") || ""));
  };
};

/** The Koa application: reserved paths, every management route, and the error shape around them. */
export const createApp = (deps: AppDeps): Koa => buildApp(deps).app;

/**
 * The service's Node request handler: the Koa application, with the kept-answer lane (http/kept-answer-lane.ts)
 * and the MCP endpoint's frame (http/mcp-frame.ts) in front of it when `observeKeptAnswer` is given and CORS is
 * off (the lane writes no CORS headers).
 */
export const createRequestHandler = (deps: AppDeps): ((req: IncomingMessage, res: ServerResponse) => unknown) => {
  const { app, keptRoutes } = buildApp(deps);
  const observe = deps.observeKeptAnswer;
  if (observe === undefined || (deps.corsOrigins ?? []).length > 0) return app.callback();
  const endpoints = [deps.oauthServer, deps.mcp].filter((e) => e !== undefined);
  const handler = withKeptAnswerLane(app, keptRoutes, {
    verifier: deps.verifier,
    rateLimiter: deps.rateLimiter,
    logger: deps.logger,
    observe,
    nodePaths: (path) => endpoints.some((endpoint) => endpoint.matches(path)),
  });
  if (deps.mcp === undefined) return handler;
  // The MCP endpoint's requests skip the stack too (http/mcp-frame.ts); the OAuth server's paths are not theirs.
  return withMcpFrame(app, handler, {
    rateLimiter: deps.rateLimiter,
    logger: deps.logger,
    observe,
    matches: deps.mcp.matches,
    handleNode: deps.mcp.handleNode,
  });
};

const buildApp = (deps: AppDeps): { app: Koa; keptRoutes: ReadonlyArray<KeptRoute> } => {
  const app = new Koa();
  app.silent = true;
  if ((deps.trustProxyHops ?? 0) > 0) {
    app.proxy = true;
    app.maxIpsCount = deps.trustProxyHops ?? 0;
  }
  // Exact paths only: `/servers/` and `/SERVERS` are not routes (no undocumented spelling answers).
  const routerOptions = { strict: true, sensitive: true };
  const router = new Router(routerOptions);
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  // One readiness check at a time: while the database does not answer, probes share the pending check
  // instead of each holding a pool connection until the query timeout.
  let checking: Promise<boolean> | undefined;
  const readiness = () => {
    checking ??= deps
      .ready()
      .catch(() => false)
      .finally(() => {
        checking = undefined;
      });
    return checking;
  };
  router.get("/readyz", async (ctx) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), READY_TIMEOUT_MS);
    });
    const ready = await Promise.race([readiness(), late]).finally(() => clearTimeout(timer));
    if (ready === true) ctx.body = { status: "ready" };
    else
      sendProblem(ctx, {
        status: 503,
        code: "UNAVAILABLE",
        title: "Service Unavailable",
        detail:
          ready === "late"
            ? `the database did not answer within ${READY_TIMEOUT_MS / 1000} s`
            : "the database is not reachable",
      });
  });
  if (deps.devJwks !== undefined) {
    const jwks = deps.devJwks;
    router.get("/.well-known/jwks.json", (ctx) => {
      ctx.set("Cache-Control", "public, max-age=300");
      ctx.body = jwks;
    });
  }
  mountApiDocs(router, deps.authUrl === undefined ? {} : { authUrl: deps.authUrl });
  if (deps.upstreamConsent !== undefined) {
    const consent = deps.upstreamConsent;
    const page =
      (answer: (query: URLSearchParams, requestId: string) => Promise<ConsentPage>): Middleware =>
      async (ctx) => {
        const result = await answer(new URLSearchParams(ctx.querystring), String(ctx.state.requestId ?? ""));
        ctx.status = result.status;
        ctx.set({ ...result.headers });
        ctx.body = result.body;
      };
    router.get("/oauth2/authorize", page(consent.authorize));
    router.get("/oauth2/callback", page(consent.callback));
  }
  if (deps.callerCredentials !== undefined) mountCallerCredentials(router, deps.callerCredentials);

  mountApprovalPages(router, deps.runtime as never, deps.approvalDecided);
  mountConsole(router, deps.consoleOAuth);
  // The live tail of a server's tool calls (Server-Sent Events; docs/api-rules.md §24).
  router.get("/servers/:id/calls/stream", callTail(deps));
  const keptRoutes: Array<KeptRoute> = [];
  for (const route of ROUTES) {
    const kept = keptAnswersOf(route, deps);
    if (kept !== undefined) keptRoutes.push({ route, kept });
    const handler = operationMiddleware(route, deps, kept);
    if (route.method === "GET") router.get(route.path, handler);
    else if (route.method === "POST") router.post(route.path, handler);
    else if (route.method === "PATCH") router.patch(route.path, handler);
    else router.delete(route.path, handler);
  }
  for (const observer of deps.observe ?? []) app.use(observer);
  app.use(requestFrame(deps.logger));
  const cors = corsFor(deps.corsOrigins ?? []);
  // The MCP paths answer CORS themselves, for MCP_ALLOWED_ORIGINS (CORS_ORIGINS is the management API's).
  const mcpPaths = deps.mcp?.matches ?? (() => false);
  if (cors !== undefined) app.use((ctx, next) => (mcpPaths(ctx.path) ? next() : cors(ctx, next)));
  if (deps.rateLimiter !== undefined)
    app.use(addressRateLimit(deps.rateLimiter, deps.mcp === undefined ? undefined : deps.mcp.matches));
  if (deps.oauthServer !== undefined || deps.mcp !== undefined) app.use(nodeEndpoints(deps.oauthServer, deps.mcp));
  app.use(unmatched());
  app.use(routesBySegment(router, routerOptions));
  return { app, keptRoutes };
};
