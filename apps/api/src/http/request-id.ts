import { randomUUID } from "node:crypto";
import type { Context } from "koa";

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives the request an id (the caller's X-Request-Id when it is a sane token) and echoes it back. */
export const assignRequestId = (ctx: Context): void => {
  const given = ctx.get("X-Request-Id");
  const id = SANE.test(given) ? given : randomUUID();
  ctx.state.requestId = id;
  ctx.set("X-Request-Id", id);
};
