import type { Context } from "koa";
import type { Logger } from "pino";
import type { McpRequestNote } from "./mcp-request-note.js";

/**
 * The request's one structured log line: id, method, path (never the query or headers), status, duration
 * since `started` (process.hrtime.bigint()); for an MCP request, its JSON-RPC method and the tool called.
 */
export const logRequest = (logger: Logger, ctx: Context, started: bigint): void => {
  const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
  const note = ctx.state.mcpNote as McpRequestNote | undefined;
  logger.info(
    {
      requestId: ctx.state.requestId,
      method: ctx.method,
      path: ctx.path,
      status: ctx.status,
      durationMs: Math.round(durationMs * 100) / 100,
      ...(note?.method === undefined ? {} : { mcpMethod: note.method }),
      ...(note?.tool === undefined ? {} : { tool: note.tool }),
    },
    "request",
  );
};
