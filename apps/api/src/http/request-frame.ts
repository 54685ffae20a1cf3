import type { Middleware } from "koa";
import type { Logger } from "pino";
import { setSecurityHeaders } from "../security/http-guards.js";
import { httpProblems } from "./problem-response.js";
import { assignRequestId } from "./request-id.js";
import { withMcpRequestNote } from "./mcp-request-note.js";
import { logRequest } from "./request-log.js";
import { sendProblem } from "./send-problem.js";

/**
 * What every request gets around it, in one middleware rather than four nested ones (each an async frame
 * and a promise per request): its id, the security headers, the error boundary (anything thrown below
 * becomes a 500 problem and a log line rather than Koa's default text) and, once answered, its log line.
 */
export const requestFrame =
  (logger: Logger): Middleware =>
  async (ctx, next) => {
    assignRequestId(ctx);
    const started = process.hrtime.bigint();
    setSecurityHeaders(ctx);
    try {
      // An MCP request's log line names its JSON-RPC method and tool (mcp-request-note.ts).
      if (ctx.path.startsWith("/mcp/")) ctx.state.mcpNote = await withMcpRequestNote(next);
      else await next();
    } catch (error) {
      logger.error({ requestId: ctx.state.requestId, err: error }, "unhandled error");
      sendProblem(ctx, httpProblems.internal());
    } finally {
      logRequest(logger, ctx, started);
    }
  };
