import { randomUUID } from "node:crypto";
import type { Context } from "koa";

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives the request an id (the caller's X-Request-Id when it is a sane token) and echoes it back. */
export const assignRequestId = (ctx: Context): void => {
  const given = ctx.req.headers["x-request-id"];
  const id = typeof given === "string" && SANE.test(given) ? given : randomUUID();
  ctx.state.requestId = id;
  // The Node response's own setter: a string value, headers not sent yet (what ctx.set does, less Koa's arrays).
  ctx.res.setHeader("X-Request-Id", id);
};
