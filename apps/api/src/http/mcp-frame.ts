import type { IncomingMessage, ServerResponse } from "node:http";
import type Koa from "koa";
import type { Logger } from "pino";
import { noteDrawnBudget } from "../security/drawn-budgets.js";
import { addressOf } from "../security/http-guards.js";
import type { RateLimitDecision, RateLimiter } from "../security/rate-limit.js";
import { frameHeaders } from "./frame-headers.js";
import { withMcpRequestNote } from "./mcp-request-note.js";
import { requestIdOf } from "./request-id.js";
import { logRequest } from "./request-log.js";

// A request to a server's MCP endpoint (`/mcp/{serverId}`) handed to the MCP runtime without the Koa
// middleware stack. For these the stack does nothing but its frame — the request id, the security headers,
// the address budget, the log line naming the MCP method, the request metrics — before `handOver` gives the
// raw Node request and response to the runtime, which writes the answer itself. Here the same steps run in the
// stack's order in one plain function: no Koa dispatch through a chain of async middleware, no on-finished
// listeners on the response and socket, no Koa response handling (mcp-frame.test.ts compares both). A refusal
// by the address limit goes to the stack with the budget drawn (security/drawn-budgets.ts), which answers it
// as always.

export interface McpFrameDeps {
  readonly rateLimiter?: RateLimiter | undefined;
  readonly logger: Logger;
  /** Records an answered request as the stack's observers would (the metrics' `observeRequest`). */
  readonly observe: (ctx: Koa.Context, startMs: number) => void;
  /** True for the paths the MCP runtime answers. */
  readonly matches: (path: string) => boolean;
  /**
   * The runtime's Node handler. `frame`: the headers the stack would have set before handing over (request id,
   * security headers, address budget), for the runtime to send first with its answer (McpRuntime.handleNode).
   */
  readonly handleNode: (req: IncomingMessage, res: ServerResponse, frame: ReadonlyArray<string>) => unknown;
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** The metrics' route label of every request this frame takes (app.ts `handOver`). */
const ROUTE_TEMPLATE = "/mcp/{serverId}";

/**
 * The Node request handler `stack` with MCP endpoint requests framed here: every other request, and any the
 * address limit refuses, goes to `stack` untouched.
 */
export const withMcpFrame = (app: Koa, stack: NodeHandler, deps: McpFrameDeps): NodeHandler => {
  const frame = async (req: IncomingMessage, res: ServerResponse) => {
    const startMs = performance.now();
    const started = process.hrtime.bigint();
    const ctx = app.createContext(req, res);
    // The stack's path is Koa's (no query, as parsed by Koa); anything else is the stack's to route.
    if (!ctx.path.startsWith("/mcp/") || !deps.matches(ctx.path)) return stack(req, res);
    let address: RateLimitDecision | undefined;
    const limiter = deps.rateLimiter;
    if (limiter !== undefined) {
      address = await limiter.consume("address", addressOf(ctx));
      if (!address.allowed) {
        noteDrawnBudget(req, address);
        return stack(req, res);
      }
    }
    // In the stack's order: the request frame, then the address budget, then the hand-over. Their headers go
    // to the runtime, which sends them with its answer (one writeHead on the fast lane).
    res.statusCode = 404;
    const requestId = requestIdOf(req);
    ctx.state.requestId = requestId;
    if (address !== undefined) ctx.state.rateLimit = address;
    const frame = frameHeaders(requestId, address);
    ctx.state.routeTemplate = ROUTE_TEMPLATE;
    ctx.respond = false;
    try {
      ctx.state.mcpNote = await withMcpRequestNote(async () => deps.handleNode(req, res, frame));
    } catch (error) {
      // The runtime answers its own failures; should one escape anyway, the connection is closed rather than
      // left waiting (Koa no longer writes a response the runtime took).
      deps.logger.error({ requestId: ctx.state.requestId, err: error }, "unhandled error");
      if (!res.writableEnded) res.destroy();
    }
    logRequest(deps.logger, ctx, started);
    deps.observe(ctx, startMs);
  };
  return (req, res) => (req.url?.startsWith("/mcp/") === true ? frame(req, res) : stack(req, res));
};
