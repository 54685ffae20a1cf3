import type { Context } from "koa";
import { DocumentJson } from "@mcpsm/domain/openapi-import";
import { jsonPath } from "@mcpsm/domain/schemas";
import { visit } from "jsonc-parser";
import getRawBody from "raw-body";
import { scanImportBody } from "./import-body.js";
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

const badRequest = (detail: string, path = ""): BodyResult => ({
  ok: false,
  problem: {
    status: 400,
    code: "INVALID_ARGUMENT",
    title: "Bad Request",
    detail,
    errors: [{ path, message: path === "" ? detail : detail.slice(path.length + 2) }],
  },
});

/**
 * Nesting depth of a JSON text, counted without parsing it (so a hostile document cannot exhaust the stack),
 * and its number of object members (each has exactly one `:` outside strings).
 */
const jsonShape = (text: string): { readonly depth: number; readonly members: number } => {
  let depth = 0;
  let max = 0;
  let members = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
    else if (c === 58) members++;
  }
  return { depth: max, members };
};

/** How many members the objects of a parsed JSON value have in all. */
const memberCount = (value: unknown): number => {
  let count = 0;
  const stack: Array<unknown> = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) for (const item of node) stack.push(item);
    else if (typeof node === "object" && node !== null) {
      const values = Object.values(node);
      count += values.length;
      for (const item of values) stack.push(item);
    }
  }
  return count;
};

/** The path of the first member whose key repeats one before it in the same object (jsonc-parser's scanner). */
const duplicateKeyPath = (text: string): ReadonlyArray<string | number> | undefined => {
  const objects: Array<Set<string>> = [];
  let found: ReadonlyArray<string | number> | undefined;
  visit(
    text,
    {
      onObjectBegin: () => void objects.push(new Set()),
      onObjectEnd: () => void objects.pop(),
      onObjectProperty: (key, _offset, _length, _line, _column, path) => {
        const keys = objects.at(-1);
        if (found === undefined && keys?.has(key)) found = [...path(), key];
        keys?.add(key);
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return found;
};

/** The JSON value of a body's text: 400 when malformed, nested too deeply or when a key repeats within an object. */
const parseJsonText = (text: string, maxDepth: number): BodyResult => {
  const shape = jsonShape(text);
  if (shape.depth > maxDepth) return badRequest(`the JSON body is nested deeper than ${maxDepth} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return badRequest("the request body is not valid JSON");
  }
  // JSON.parse keeps the last of repeated keys, so `{"type":"SECRET","type":"ENV"}` would read as ENV while
  // another reader sees SECRET: a member count that differs from the text's means a key repeats.
  if (memberCount(value) !== shape.members) {
    const where = jsonPath("", duplicateKeyPath(text) ?? []);
    return badRequest(`${where}: the key appears more than once in its object`, where);
  }
  return { ok: true, value };
};

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/**
 * An import's body: the envelope parsed, `import.document` cut out unparsed as a DocumentJson (import-body.ts).
 * A body whose document cannot be found is parsed whole, as any body.
 */
const importBody = (raw: Buffer, maxDepth: number): BodyResult => {
  // raw-body's UTF-8 decoding drops a byte order mark: so does this.
  const bytes = UTF8_BOM.every((b, i) => raw[i] === b) ? raw.subarray(3) : raw;
  const scan = scanImportBody(bytes);
  if (scan.depth > maxDepth) return badRequest(`the JSON body is nested deeper than ${maxDepth} levels`);
  const span = scan.document;
  if (span === undefined) return parseJsonText(bytes.toString("utf8"), maxDepth);
  const envelope = parseJsonText(
    `${bytes.toString("utf8", 0, span.start)}null${bytes.toString("utf8", span.end)}`,
    maxDepth,
  );
  if (!envelope.ok) return envelope;
  const body = envelope.value as { import: Record<string, unknown> };
  // A copy of exactly the value's bytes (a view would carry the whole body to the reader's thread).
  body.import.document = new DocumentJson(new Uint8Array(bytes.subarray(span.start, span.end)), span.members);
  return envelope;
};

/**
 * Reads a JSON request body: 415 unless it is application/json in UTF-8, 413 over the size limit, 400 when
 * malformed, nested too deeply or when a key repeats within an object. An absent body reads as `undefined`.
 * With `unparsedDocument` (the OpenAPI imports), `import.document` is left unparsed: a DocumentJson.
 */
export const readJsonBody = async (
  ctx: Context,
  limits: { readonly maxBytes?: number; readonly maxDepth?: number; readonly unparsedDocument?: boolean } = {},
): Promise<BodyResult> => {
  const maxBytes = limits.maxBytes ?? MAX_BODY_BYTES;
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  if (!hasBody(ctx)) return { ok: true, value: undefined };
  const charset = ctx.request.charset;
  if (ctx.request.is("application/json") === false || (charset !== "" && charset.toLowerCase() !== "utf-8"))
    return { ok: false, problem: httpProblems.unsupportedMediaType() };
  let raw: Buffer | string;
  try {
    raw =
      limits.unparsedDocument === true
        ? await getRawBody(ctx.req, { limit: maxBytes })
        : await getRawBody(ctx.req, { limit: maxBytes, encoding: "utf8" });
  } catch (error) {
    // raw-body stopped reading (and paused the request) part-way: discard the rest of the body, or the
    // unread bytes would stay on the keep-alive connection and the client's next request on it would hang.
    ctx.req.resume();
    const type = (error as { type?: string }).type;
    if (type === "entity.too.large") return { ok: false, problem: httpProblems.payloadTooLarge(maxBytes) };
    return badRequest("the request body could not be read");
  }
  return typeof raw === "string" ? parseJsonText(raw, maxDepth) : importBody(raw, maxDepth);
};
