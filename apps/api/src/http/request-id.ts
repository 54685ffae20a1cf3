import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Context } from "koa";

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's X-Request-Id when it is a sane token, else a new one. */
export const requestIdOf = (req: IncomingMessage): string => {
  const given = req.headers["x-request-id"];
  return typeof given === "string" && SANE.test(given) ? given : randomUUID();
};

/** Gives the request an id (`requestIdOf`) and echoes it back. */
export const assignRequestId = (ctx: Context): void => {
  const id = requestIdOf(ctx.req);
  ctx.state.requestId = id;
  // The Node response's own setter: a string value, headers not sent yet (what ctx.set does, less Koa's arrays).
  ctx.res.setHeader("X-Request-Id", id);
};
