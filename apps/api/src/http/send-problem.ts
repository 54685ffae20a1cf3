import type { Context } from "koa";
import type { Problem, ProblemResponse } from "./problem-response.js";

/** Writes `problem` as application/problem+json. */
export const sendProblem = (ctx: Context, problem: ProblemResponse): void => {
  const body: Problem = {
    type: "about:blank",
    title: problem.title,
    status: problem.status,
    code: problem.code,
    detail: problem.detail,
    requestId: String(ctx.state.requestId ?? ""),
    ...(problem.errors === undefined ? {} : { errors: problem.errors }),
    ...(problem.errorCount === undefined ? {} : { errorCount: problem.errorCount }),
    ...(problem.references === undefined ? {} : { references: problem.references }),
  };
  for (const [name, value] of Object.entries(problem.headers ?? {})) ctx.set(name, value);
  ctx.status = problem.status;
  ctx.type = "application/problem+json";
  ctx.body = JSON.stringify(body);
};
