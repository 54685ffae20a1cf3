import type { Context } from "koa";
import type { Logger } from "pino";

/**
 * The request's one structured log line: id, method, path (never the query or headers), status, duration
 * since `started` (process.hrtime.bigint()).
 */
export const logRequest = (logger: Logger, ctx: Context, started: bigint): void => {
  const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
  logger.info(
    {
      requestId: ctx.state.requestId,
      method: ctx.method,
      path: ctx.path,
      status: ctx.status,
      durationMs: Math.round(durationMs * 100) / 100,
    },
    "request",
  );
};
