import type { Context } from "koa";
import getRawBody from "raw-body";
import { httpProblems, type ProblemResponse } from "./problem-response.js";

/** Largest accepted request body. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest accepted JSON nesting; deeper documents are refused before they reach validation. */
export const MAX_JSON_DEPTH = 64;

/** The outcome of reading a request body: the parsed JSON, or the problem to answer. */
export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: ProblemResponse };

const hasBody = (ctx: Context): boolean =>
  ctx.request.headers["transfer-encoding"] !== undefined || Number(ctx.request.headers["content-length"] ?? 0) > 0;

const badRequest = (detail: string): BodyResult => ({
  ok: false,
  problem: {
    status: 400,
    code: "INVALID_ARGUMENT",
    title: "Bad Request",
    detail,
    errors: [{ path: "", message: detail }],
  },
});

/** Nesting depth of a JSON text, counted without parsing it (so a hostile document cannot exhaust the stack). */
const jsonDepth = (text: string): number => {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
};

/**
 * Reads a JSON request body: 415 unless it is application/json in UTF-8, 413 over the size limit, 400 when
 * malformed or nested too deeply. An absent body reads as `undefined`.
 */
export const readJsonBody = async (
  ctx: Context,
  limits: { readonly maxBytes?: number; readonly maxDepth?: number } = {},
): Promise<BodyResult> => {
  const maxBytes = limits.maxBytes ?? MAX_BODY_BYTES;
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  if (!hasBody(ctx)) return { ok: true, value: undefined };
  const charset = ctx.request.charset;
  if (ctx.request.is("application/json") === false || (charset !== "" && charset.toLowerCase() !== "utf-8"))
    return { ok: false, problem: httpProblems.unsupportedMediaType() };
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit: maxBytes, encoding: "utf8" });
  } catch (error) {
    // raw-body stopped reading (and paused the request) part-way: discard the rest of the body, or the
    // unread bytes would stay on the keep-alive connection and the client's next request on it would hang.
    ctx.req.resume();
    const type = (error as { type?: string }).type;
    if (type === "entity.too.large") return { ok: false, problem: httpProblems.payloadTooLarge(maxBytes) };
    return badRequest("the request body could not be read");
  }
  if (jsonDepth(text) > maxDepth) return badRequest(`the JSON body is nested deeper than ${maxDepth} levels`);
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return badRequest("the request body is not valid JSON");
  }
};
