import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerToken } from "@mcpsm/domain/schemas";
import { type Actor, scopeRefusal } from "@mcpsm/domain/use-cases";
import type Koa from "koa";
import type { Logger } from "pino";
import type { AccessTokenVerifier } from "../auth/access-token-verifier.js";
import { noteDrawnBudget } from "../security/drawn-budgets.js";
import { addressOf, shownBudget } from "../security/http-guards.js";
import type { RateLimitDecision, RateLimiter } from "../security/rate-limit.js";
import { frameHeaders } from "./frame-headers.js";
import { JSON_TYPE, type KeptAnswers, keptAnswerFor } from "./operation-middleware.js";
import { requestIdOf } from "./request-id.js";
import { logRequest } from "./request-log.js";
import type { Route } from "./route-table.js";
import type { SerialisedAnswer } from "./serialised-answers.js";

// A kept answer (GET /servers/{id} from the bytes kept on its cached graph) written without the middleware
// stack: a Koa context, but no chain of a dozen middleware frames, router dispatch and Koa's response
// handling around a ~30 KB buffer. The lane answers only a request the stack would answer with those very
// bytes: its token already verified (the verifier's cache), the scope (`scopeRefusal`), the tenant
// (`mayReadServerGraph`, in `keptAnswerFor`) and the kept answer are the operation middleware's own checks,
// run before anything is drawn or written. Then it draws the address and tenant budgets, in the stack's order;
// a refusal, or an answer dropped meanwhile, hands the request to the stack with the budgets already drawn
// (security/drawn-budgets.ts), which answers it as always. An answer carries what the stack's would: request
// id, security headers, RateLimit-*, ETag, the log line and the request metrics.

export interface KeptAnswerLaneDeps {
  readonly verifier: AccessTokenVerifier;
  readonly rateLimiter?: RateLimiter | undefined;
  readonly logger: Logger;
  /** Records an answered request as the stack's observers would (the metrics' `observeRequest`). */
  readonly observe: (ctx: Koa.Context, startMs: number) => void;
  /** Paths the stack hands to a Node endpoint (MCP runtime, OAuth server) before any route. */
  readonly nodePaths: (path: string) => boolean;
}

/**
 * The headers the stack sends with a kept answer, in the order it sets them (the request frame, the address
 * budget, the tenant budget when it is the lower, the operation's own), as one array for `writeHead`: Node
 * then stores no per-header record and lower-cases no name.
 */
const answerHeaders = (
  requestId: string,
  address: RateLimitDecision | undefined,
  tenant: RateLimitDecision | undefined,
  kept: SerialisedAnswer,
): Array<string> => {
  // `showAddressBudget`, then `showTenantBudget` (the same names: the lower budget's values in their places).
  const headers = frameHeaders(requestId, shownBudget(address, tenant));
  // `writeSerialised`, then Koa's body setter (the length of a Buffer body).
  if (kept.etag !== undefined) headers.push("ETag", kept.etag);
  headers.push("Content-Type", JSON_TYPE, "Content-Length", String(kept.body.length));
  return headers;
};

/** A route whose answers are kept, and where it is mounted. */
export interface KeptRoute {
  readonly route: Route;
  readonly kept: KeptAnswers;
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** A lane's route: `/<literal>/:<param>`, GET. */
interface Lane extends KeptRoute {
  readonly prefix: string;
  readonly param: string;
}

const ONE_PARAM = /^(\/[A-Za-z0-9_-]+\/):([A-Za-z0-9_]+)$/;
/** A parameter the router would pass on as it is (nothing to decode) and no other path would match. */
const PLAIN = /^[A-Za-z0-9_-]+$/;

const lanesOf = (routes: ReadonlyArray<KeptRoute>): Array<Lane> =>
  routes.flatMap((kept) => {
    const match = kept.route.method === "GET" ? ONE_PARAM.exec(kept.route.path) : null;
    return match?.[1] === undefined || match[2] === undefined ? [] : [{ ...kept, prefix: match[1], param: match[2] }];
  });

/**
 * The Node request handler of `app` with the kept-answer lane in front of it: a request the lane cannot
 * answer goes to Koa's own handler untouched.
 */
export const withKeptAnswerLane = (
  app: Koa,
  routes: ReadonlyArray<KeptRoute>,
  deps: KeptAnswerLaneDeps,
): NodeHandler => {
  const stack = app.callback();
  const lanes = lanesOf(routes);
  const { verified } = deps.verifier;
  if (lanes.length === 0 || verified === undefined) return stack;

  /** The lane, the caller and the path parameter of a request the lane answers; undefined for the stack. */
  const candidate = (req: IncomingMessage) => {
    const url = req.url;
    if (req.method !== "GET" || url === undefined) return undefined;
    const lane = lanes.find((l) => url.startsWith(l.prefix));
    if (lane === undefined || deps.nodePaths(url)) return undefined;
    const value = url.slice(lane.prefix.length);
    const header = req.headers.authorization;
    if (!PLAIN.test(value) || header === undefined || header === "") return undefined;
    const token = bearerToken(header);
    const actor = typeof token === "string" ? verified(token) : undefined;
    if (actor === undefined || scopeRefusal(actor, lane.route.operation) !== undefined) return undefined;
    const params = { [lane.param]: value };
    return keptAnswerFor(lane.kept, actor, params).answer === undefined ? undefined : { lane, actor, params };
  };

  const answer = async (
    req: IncomingMessage,
    res: ServerResponse,
    { lane, actor, params }: { lane: Lane; actor: Actor; params: Record<string, string> },
  ) => {
    const started = process.hrtime.bigint();
    const startMs = performance.now();
    const ctx = app.createContext(req, res);
    let address: RateLimitDecision | undefined;
    let tenant: RateLimitDecision | undefined;
    const toStack = () => {
      if (address !== undefined) noteDrawnBudget(req, address);
      if (tenant !== undefined) noteDrawnBudget(req, tenant);
      return stack(req, res);
    };
    try {
      const limiter = deps.rateLimiter;
      if (limiter !== undefined) {
        address = await limiter.consume("address", addressOf(ctx));
        if (!address.allowed) return toStack();
        tenant = await limiter.consume("tenant", actor.tenant);
        if (!tenant.allowed) return toStack();
      }
      // The budgets were awaited: the answer is looked up again (a change may have dropped it meanwhile).
      const kept = keptAnswerFor(lane.kept, actor, params).answer;
      if (kept === undefined) return toStack();
      const requestId = requestIdOf(req);
      ctx.state.requestId = requestId;
      ctx.state.tenant = actor.tenant;
      ctx._matchedRoute = lane.route.path;
      res.writeHead(200, answerHeaders(requestId, address, tenant, kept));
      logRequest(deps.logger, ctx, started);
      deps.observe(ctx, startMs);
      res.end(kept.body);
    } catch (error) {
      // Nothing here should throw; if it does before the answer went out, the stack answers instead.
      deps.logger.error({ err: error }, "kept-answer lane failed");
      if (!res.headersSent) return toStack();
    }
  };

  return (req, res) => {
    const found = candidate(req);
    return found === undefined ? stack(req, res) : answer(req, res, found);
  };
};
