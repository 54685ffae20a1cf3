import type { Context } from "koa";
import type { Logger } from "pino";
import type { McpRequestNote } from "./mcp-request-note.js";

/**
 * The request's one structured log line: id, method, path (never the query or headers), status, duration
 * since `started` (process.hrtime.bigint()); for an MCP request, its JSON-RPC method and the tool called.
 */
export const logRequest = (logger: Logger, ctx: Context, started: bigint): void => {
  // pino checks the level itself, but the line's fields would be gathered before it could say no.
  if (!logger.isLevelEnabled("info")) return;
  const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
  const note = ctx.state.mcpNote as McpRequestNote | undefined;
  const line: Record<string, unknown> = {
    requestId: ctx.state.requestId,
    method: ctx.method,
    path: ctx.path,
    status: ctx.status,
    durationMs: Math.round(durationMs * 100) / 100,
  };
  if (note?.method !== undefined) line.mcpMethod = note.method;
  if (note?.tool !== undefined) line.tool = note.tool;
  logger.info(line, "request");
};
