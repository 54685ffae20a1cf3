import type { ServerResponse } from "node:http";

// How the fast lane writes what the SDK path would write (fast-lane.ts): the same status, headers and JSON-RPC
// bytes for each era, so that a client cannot tell which path answered.

/** The protocol era of a request: 2026-07-28 (modern) or 2025-11-25 (legacy, one SSE event per answer). */
export type Era = "modern" | "legacy";
const SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo";

/** A tool result or a JSON-RPC error (what the SDK handler would answer or throw). */
export type ToolAnswer =
  | { readonly kind: "result"; readonly result: Readonly<Record<string, unknown>> }
  | { readonly kind: "error"; readonly code: number; readonly message: string; readonly data?: unknown };

export type Json = Record<string, unknown>;

export const isPlainObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const onlyKeys = (value: Json, allowed: ReadonlySet<string>) => {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
};

/** The headers of the SDK's one-event SSE answer (2025-11-25). */
const SSE_HEADERS = {
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "content-type": "text/event-stream",
  "x-accel-buffering": "no",
};

/** What precedes the JSON of the one SSE event the SDK's stateless transport writes. */
const SSE_PREFIX = "event: message\ndata: ";

/** Each header of an answer in order: its name, and the key of `extra` it takes its value from (else fixed). */
type HeaderPlan = ReadonlyArray<readonly [name: string, from: string | undefined, fixed: string]>;

/** The names of the extra headers come from a fixed set (the rate limit's): a plan is made once per set. */
const headerPlans = new Map<string, HeaderPlan>();
const MAX_PLANS = 16;

const planOf = (era: Era, keys: ReadonlyArray<string>): HeaderPlan => {
  const from = new Map<string, string | undefined>();
  const fixed: Record<string, string> = era === "modern" ? { "content-type": "application/json" } : SSE_HEADERS;
  for (const name of Object.keys(fixed)) from.set(name, undefined);
  for (const key of keys) from.set(key.toLowerCase(), key);
  return [...from.keys()].sort().map((name) => [name, from.get(name), fixed[name] ?? ""] as const);
};

/** Response headers as the SDK's Node adapter writes them: lower-case names, in `Headers` order. */
export const wireHeaders = (era: Era, extra: Readonly<Record<string, string>> | undefined) => {
  const keys = extra === undefined ? [] : Object.keys(extra);
  const id = `${era}\n${keys.join("\n")}`;
  let plan = headerPlans.get(id);
  if (plan === undefined) {
    plan = planOf(era, keys);
    if (headerPlans.size < MAX_PLANS) headerPlans.set(id, plan);
  }
  const given = extra ?? {};
  const headers: Record<string, string> = {};
  for (const [name, key, value] of plan) headers[name] = key === undefined ? value : (given[key] as string).trim();
  return headers;
};

/** Writes a web Response as the SDK's Node adapter does (status, headers, body, then the end). */
export const writeResponse = async (res: ServerResponse, response: Response) => {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  res.writeHead(response.status, headers);
  if (response.body === null) res.end();
  else res.end(Buffer.from(await response.arrayBuffer()));
};

/** The JSON-RPC message the SDK serialises for an answer: `result` first for results, `error` last for errors. */
export const resultMessage = (result: string, id: string | number) =>
  `{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;

/**
 * An answer kept encoded, split where the request's id goes: the body of `era`'s answer to a request is
 * `head`, then `resultTail(id, era)` (for a kept tools/list: encoded once, not once per request).
 */
export const resultHead = (result: string, era: Era): Buffer =>
  Buffer.from(`${era === "legacy" ? SSE_PREFIX : ""}{"result":${result},"jsonrpc":"2.0","id":`);

/**
 * `resultHead` of a tools/list result, cut after its `tools` list: `[common, own]`, where `common` is what
 * every server of the same tools sends alike in `era` and `own` the rest of its head (2026-07-28 stamps the
 * server's name into the result's `_meta`). Their bytes joined are `resultHead(JSON.stringify(result), era)`
 * exactly; when `tools` is not the result's first member (not how the SDK writes it), `own` is empty and
 * `common` the whole head.
 */
export const listHeadParts = (result: Readonly<Record<string, unknown>>, era: Era): readonly [Buffer, Buffer] => {
  const whole = JSON.stringify(result);
  const opening = `{"tools":${JSON.stringify(result.tools)}`;
  if (result.tools === undefined || !whole.startsWith(opening)) return [resultHead(whole, era), Buffer.alloc(0)];
  return [
    Buffer.from(`${era === "legacy" ? SSE_PREFIX : ""}{"result":${opening}`),
    Buffer.from(`${whole.slice(opening.length)},"jsonrpc":"2.0","id":`),
  ];
};
export const resultTail = (id: string | number, era: Era) => `${JSON.stringify(id)}}${era === "legacy" ? "\n\n" : ""}`;

/**
 * Writes a 200 answer whose body is `head` (its parts in order) then `tail` on the wire exactly as
 * `res.end(head + tail)` after `writeHead` would (one chunk of a chunked body, then the last chunk), without
 * joining and encoding them: the header goes first so that Node joins the corked writes into one chunk, and the
 * socket is corked until the end so that everything leaves in one write (fast-lane-wire.test.ts reads the raw
 * bytes).
 */
export const writeJoined = (
  res: ServerResponse,
  headers: Record<string, string> | Array<string>,
  head: Buffer | readonly [Buffer, Buffer],
  tail: string,
) => {
  res.socket?.cork();
  res.writeHead(200, headers);
  res.flushHeaders();
  res.cork();
  if (Buffer.isBuffer(head)) res.write(head);
  else for (const part of head) if (part.length > 0) res.write(part);
  res.write(tail);
  res.uncork();
  // Ends the body and uncorks the socket fully (Node's `end` does).
  res.end();
};
export const errorMessage = (id: string | number, answer: Extract<ToolAnswer, { kind: "error" }>, era: Era) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: {
      // The 2026-07-28 codec's error-code mapping (-32002, resource not found, is sent as invalid params).
      code: era === "modern" && answer.code === -32002 ? -32602 : answer.code,
      message: answer.message,
      ...(answer.data !== undefined ? { data: answer.data } : {}),
    },
  });

/**
 * A tools/call result as the 2026-07-28 codec sends it: validated (the wire schema's keys in its order, then
 * the `resultType` it defaults), then the server's identity stamped into `_meta`.
 */
export const encodeToolResult = (
  result: Readonly<Record<string, unknown>>,
  serverInfo: unknown,
  era: Era,
): string | undefined => {
  // Only the shapes the runtime builds; anything else is not something the lane knows how the SDK encodes.
  if (!onlyKeys(result, RESULT_KEYS) || !Array.isArray(result.content)) return undefined;
  return JSON.stringify({
    content: result.content,
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    ...(result.isError !== undefined ? { isError: result.isError } : {}),
    // The 2025-11-25 codec sends the validated result as it is.
    ...(era === "modern" ? { resultType: "complete", _meta: { [SERVER_INFO_META_KEY]: serverInfo } } : {}),
  });
};
const RESULT_KEYS = new Set(["content", "structuredContent", "isError"]);

/** One SSE event carrying `json`, as the SDK's stateless transport writes it. */
export const sseEvent = (json: string) => `${SSE_PREFIX}${json}\n\n`;
/** The JSON of a one-event SSE answer the SDK wrote; undefined for any other stream. */
export const sseData = (text: string) =>
  text.startsWith(SSE_PREFIX) && text.endsWith("\n\n") && text.indexOf("\n\n") === text.length - 2
    ? text.slice(SSE_PREFIX.length, -2)
    : undefined;
