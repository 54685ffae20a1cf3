import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { McpAuthentication } from "../auth/mcp-authentication.js";
import type { CompiledServer, CompiledTool } from "../compiled-server.js";
import type { TenantRateDecision } from "../runtime.js";
import { type FrameHeaders, setFrameHeaders, withFrameHeaders } from "./frame-headers.js";
import { takesTaskOrProgress } from "../long-running/sdk-path.js";
import {
  type Era,
  encodeToolResult,
  errorMessage,
  isPlainObject,
  type Json,
  listHeadParts,
  onlyKeys,
  resultMessage,
  resultTail,
  sseData,
  sseEvent,
  type ToolAnswer,
  wireHeaders,
  writeJoined,
  writeResponse,
} from "./lane-wire.js";

export type { ToolAnswer } from "./lane-wire.js";

// The fast lane: the common stateless POSTs (tools/list, tools/call) answered without the SDK's
// per-exchange server, web Request/Response objects and zod passes. It answers only what it can answer with
// exactly the bytes, status and headers the SDK path would send; anything else — another method or era, a
// batch, a browser origin, a body the SDK might refuse, an unknown tool, a failed authentication — goes to the
// SDK path untouched (the body already read is replayed to it). What the SDK would answer to a tools/list is
// learnt from the SDK itself: per compiled revision and request shape its result is asked once (a synthetic,
// unobserved exchange) and kept encoded up to where the request's id goes (written with the id after it,
// fast-lane-wire.test.ts); a tools/call is accepted only with an envelope the SDK accepted that way, and its
// result is encoded as the 2026-07-28 codec encodes it (fast-lane.test.ts compares the two).
// 2025-11-25 requests (today's clients) take the same lane: the SDK is asked in that era, and the answer is the
// one SSE event the stateless SDK transport sends (fast-lane-legacy.test.ts).

const MODERN = "2026-07-28";
/** The era today's clients speak: stateless here, so no session id; the answer is one SSE event. */
const LEGACY = "2025-11-25";
const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";
/** Larger bodies are not the common case; the SDK path reads and bounds them. */
const MAX_BODY_BYTES = 64 * 1024;
/** Request shapes remembered per compiled revision (a client sends one `_meta` envelope again and again). */
const MAX_SHAPES = 64;
/** A larger shape is not remembered (memory stays bounded per revision); the SDK path answers it. */
const MAX_SHAPE_CHARS = 2048;
/** A tool name the Mcp-Name header carries as it is (never an encoded `=?base64?…?=` value, no spaces). */
const PLAIN_NAME = /^[A-Za-z0-9_.-]+$/;
/** Plain ids only: anything that needs decoding or normalising is routed by the SDK path. */
const FAST_PATH = /^\/mcp\/([A-Za-z0-9_-]+)$/;

/** What the runtime found a caller may use: its authentication and the compiled server as of now. */
export interface Admitted {
  readonly auth: McpAuthentication;
  readonly compiled: CompiledServer;
  /** Whose cancellations may reach its calls (see runtime.ts). */
  readonly caller: string;
}

/** What `prepare` read for a call: the values of its header variables (none read: undefined). */
export interface PreparedCall {
  readonly known?: ReadonlyMap<string, string> | undefined;
}

export interface FastLaneParts {
  /** True when the Host header is one the SDK path accepts. */
  readonly hostAllowed: (host: string | undefined) => boolean;
  /** The gates of an exchange (authentication, the server as of now, access); undefined: the SDK path answers. */
  readonly admit: (authorization: string, serverId: string) => Promise<Admitted | undefined>;
  /** Charges the tenant's rate limit (undefined: no limit). */
  readonly charge: (tenant: string) => Promise<TenantRateDecision | undefined>;
  /** The refusal of a request over the tenant's limit, as the SDK path answers it. */
  readonly refusal: (serverId: string, budget: TenantRateDecision) => Response;
  /** The SDK's answer to a synthetic, unobserved request against an admitted server. */
  readonly askSdk: (admitted: Admitted, headers: Headers, body: string) => Promise<Response>;
  /**
   * Counts the bytes of an answer learnt for `compiled` against the compiled-server cache's budget (it lives
   * as long as that compiled server does).
   */
  readonly learntBytes: (compiled: CompiledServer, bytes: number) => void;
  /**
   * Keeps the common part of a learnt tools/list answer (its tools) for `compiled` as long as it lives, the
   * same bytes once for every server that lists alike (compiled-cache.ts, `share`): the copy to keep.
   */
  readonly keepAnswer: (compiled: CompiledServer, head: Buffer) => Buffer;
  /** Observes a tools/list answered from the lane, as the SDK handler observes one. */
  readonly observeList: (serverId: string) => Promise<void>;
  /** True when the tool runs without the SDK's request context (no forwarded headers, no upstream OAuth). */
  readonly runsDirectly: (compiled: CompiledServer, tool: CompiledTool) => boolean;
  /**
   * What a call reads before the tenant is charged (its header variables for this caller); undefined when
   * the SDK path must answer it (a person must enter a value first: an elicitation, docs/api-rules.md §23).
   */
  readonly prepare: (admitted: Admitted, tool: CompiledTool) => Promise<PreparedCall | undefined>;
  /** Runs a tools/call as the SDK handler does. */
  readonly callTool: (
    admitted: Admitted,
    tool: CompiledTool,
    args: Readonly<Record<string, unknown>> | undefined,
    id: string | number,
    signal: AbortSignal,
    prepared: PreparedCall,
    era: Era,
  ) => Promise<ToolAnswer>;
  /** The answer to whatever escaped the lane (a bug, a failing rate limiter), as the SDK path answers it. */
  readonly defect: (error: unknown, path: string) => Response;
  /** The SDK path for a Node request. */
  readonly slow: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const LIST_KEYS = new Set(["_meta", "cursor"]);
const CALL_KEYS = new Set(["name", "arguments", "_meta"]);
const LANE_METHODS = new Set<unknown>(["tools/list", "tools/call"]);

/** A header's single value (Node joins most repeats; a repeated singleton header is not the common case). */
const single = (value: string | string[] | undefined) => (typeof value === "string" ? value : undefined);

/** The body of a request whose Content-Length was checked, or the error that ended its reading. */
const readBody = (req: IncomingMessage, length: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    });
    req.once("end", () =>
      received === length ? resolve(Buffer.concat(chunks, received)) : reject(new Error("short body")),
    );
    req.once("error", reject);
  });

/** `req` with its body read: a stand-in that yields the same bytes to the SDK path's adapter. */
const replay = (req: IncomingMessage, body: Buffer | Error): IncomingMessage =>
  Object.assign(
    body instanceof Error
      ? new Readable({
          read() {
            this.destroy(body);
          },
        })
      : Readable.from(body.length === 0 ? [] : [body]),
    { headers: req.headers, rawHeaders: req.rawHeaders, method: req.method, url: req.url },
  ) as unknown as IncomingMessage;

/**
 * The SDK's tools/list answer for one request shape of one revision, encoded up to the request's id in two
 * parts (see `listHeadParts`: the tools, shared by every server of the same tools, and the server's own
 * rest); false: it answered otherwise.
 */
type Learnt = readonly [Buffer, Buffer] | false;

/**
 * What is kept of one request shape: the SDK's answer when a tools/list asked for it, else (a tools/call
 * checking its envelope) only whether the SDK took it (`true`): 10,000 servers called but never listed do not
 * each keep a list of their tools.
 */
interface Shape {
  readonly answer: Promise<Learnt | true>;
  readonly keepsAnswer: boolean;
}

/** The lane's Node handler, and how many requests it answered itself (tests and metrics). */
export interface FastLane {
  readonly handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  readonly answered: () => number;
}

/** Serves the fast lane's requests itself and hands every other request to the SDK path. */
export const fastLane = (parts: FastLaneParts): FastLane => {
  let answered = 0;
  const shapes = new WeakMap<CompiledServer, Map<string, Shape>>();

  /**
   * The SDK's tools/list answer for `params` (and the request's era and Accept) on this revision, asked once;
   * `keep` false: only whether it answered (true), the answer itself is not kept.
   */
  const ask = (
    admitted: Admitted,
    req: IncomingMessage,
    params: Json | undefined,
    era: Era,
    keep: boolean,
  ): Promise<Learnt | true> => {
    const accept = single(req.headers.accept) ?? "";
    const key = `${era}\n${accept}\n${JSON.stringify(params)}`;
    if (key.length > MAX_SHAPE_CHARS) return Promise.resolve(false);
    const known = shapes.get(admitted.compiled) ?? new Map<string, Shape>();
    shapes.set(admitted.compiled, known);
    const found = known.get(key);
    if (found !== undefined && (found.keepsAnswer || !keep)) return found.answer;
    if (known.size >= MAX_SHAPES) known.clear();
    const headers = new Headers(
      era === "modern"
        ? { "content-type": "application/json", "mcp-protocol-version": MODERN, "mcp-method": "tools/list" }
        : { "content-type": "application/json", "mcp-protocol-version": LEGACY },
    );
    if (accept !== "") headers.set("accept", accept);
    const asked = parts
      .askSdk(admitted, headers, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "tools/list", params }))
      .then(async (response): Promise<Learnt | true> => {
        const type = era === "modern" ? "application/json" : "text/event-stream";
        if (response.status !== 200 || response.headers.get("content-type") !== type) return false;
        const text = await response.text();
        // The 2025-11-25 answer is one SSE event (no `id:` line: the transport is stateless).
        const json = era === "modern" ? text : sseData(text);
        if (json === undefined) return false;
        const message: unknown = JSON.parse(json);
        if (!isPlainObject(message) || message.id !== 0 || !isPlainObject(message.result)) return false;
        // The key (two bytes a character at most: V8 strings), the answer's bytes when kept, and the records.
        if (!keep) {
          parts.learntBytes(admitted.compiled, 2 * key.length + 256);
          return true;
        }
        // Servers of the same tools learn the same list: one copy of its bytes for all of them.
        const [common, own] = listHeadParts(message.result, era);
        const head = [parts.keepAnswer(admitted.compiled, common), own] as const;
        parts.learntBytes(admitted.compiled, own.length + 2 * key.length + 256);
        return head;
      })
      .catch((): Learnt => false);
    known.set(key, { answer: asked, keepsAnswer: keep });
    return asked;
  };

  /** The SDK's tools/list answer for `params` on this revision (see `ask`), kept for the next one. */
  const learnt = async (admitted: Admitted, req: IncomingMessage, params: Json | undefined, era: Era) => {
    const answer = await ask(admitted, req, params, era, true);
    // Never `true` (asked to keep it, the answer is kept); typed so, a stray one goes to the SDK path.
    return answer === true ? false : answer;
  };

  /** Whether the SDK takes a request with this envelope (and era and Accept) on this revision. */
  const accepts = async (admitted: Admitted, req: IncomingMessage, params: Json, era: Era) =>
    (await ask(admitted, req, params, era, false)) !== false;

  /** A kept tools/list answer to the request `id`: its encoded head and the id, written as one body. */
  const answerKept = (
    res: ServerResponse,
    frame: FrameHeaders | undefined,
    head: readonly [Buffer, Buffer],
    id: string | number,
    budget: TenantRateDecision | undefined,
    era: Era,
  ) => {
    answered++;
    writeJoined(res, withFrameHeaders(frame, wireHeaders(era, budget?.headers)), head, resultTail(id, era));
  };

  const answer = (
    res: ServerResponse,
    frame: FrameHeaders | undefined,
    body: string,
    budget: TenantRateDecision | undefined,
    era: Era,
  ) => {
    answered++;
    res.writeHead(200, withFrameHeaders(frame, wireHeaders(era, budget?.headers)));
    if (era === "modern") return void res.end(body);
    // Written, then ended: a stream of unknown length, chunked as the SDK's is.
    res.write(sseEvent(body));
    res.end();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, frame?: FrameHeaders): Promise<void> => {
    try {
      await serve(req, res, frame);
    } catch (error) {
      // Nothing is written before the lane's last step, so the answer is still the runtime's to give.
      if (!res.headersSent && !res.destroyed) {
        setFrameHeaders(res, frame);
        await writeResponse(res, parts.defect(error, req.url ?? ""));
      } else res.destroy();
    }
  };

  /** The frame's headers set on the response, then what answers other than the lane's own write it. */
  const elsewhere = (res: ServerResponse, frame: FrameHeaders | undefined) => {
    setFrameHeaders(res, frame);
    return res;
  };

  const serve = async (req: IncomingMessage, res: ServerResponse, frame: FrameHeaders | undefined): Promise<void> => {
    const h = req.headers;
    const version = h["mcp-protocol-version"];
    const era: Era | undefined = version === MODERN ? "modern" : version === LEGACY ? "legacy" : undefined;
    // A 2025-11-25 request names its method in the body only (a stray standard header: the SDK path).
    const method = era === "modern" ? h["mcp-method"] : h["mcp-method"] === undefined ? "body" : undefined;
    const length = Number(h["content-length"]);
    const route = FAST_PATH.exec(req.url ?? "");
    if (
      req.method !== "POST" ||
      route === null ||
      era === undefined ||
      (method !== "tools/list" && method !== "tools/call" && method !== "body") ||
      h["content-type"] !== "application/json" ||
      h.origin !== undefined ||
      h["transfer-encoding"] !== undefined ||
      h["content-encoding"] !== undefined ||
      typeof h.authorization !== "string" ||
      !(length > 0 && length <= MAX_BODY_BYTES) ||
      !parts.hostAllowed(h.host)
    )
      return parts.slow(req, elsewhere(res, frame));
    const serverId = route[1] as string;
    let body: Buffer;
    try {
      body = await readBody(req, length);
    } catch (error) {
      return parts.slow(replay(req, error instanceof Error ? error : new Error(String(error))), elsewhere(res, frame));
    }
    const slow = () => parts.slow(replay(req, body), elsewhere(res, frame));
    let message: unknown;
    try {
      message = JSON.parse(body.toString("utf8"));
    } catch {
      return slow();
    }
    if (
      !isPlainObject(message) ||
      !onlyKeys(message, MESSAGE_KEYS) ||
      message.jsonrpc !== "2.0" ||
      (era === "modern" ? message.method !== method : !LANE_METHODS.has(message.method)) ||
      !(typeof message.id === "string" || Number.isSafeInteger(message.id)) ||
      !(isPlainObject(message.params) || (era === "legacy" && message.params === undefined))
    )
      return slow();
    const id = message.id as string | number;
    const params = (message.params ?? {}) as Json;
    const meta = params._meta;
    if (
      era === "modern"
        ? !isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN
        : !(meta === undefined || isPlainObject(meta))
    )
      return slow();
    if (
      message.method === "tools/list"
        ? !onlyKeys(params, LIST_KEYS) || h["mcp-name"] !== undefined
        : !onlyKeys(params, CALL_KEYS)
    )
      return slow();
    const admitted = await parts.admit(h.authorization, serverId);
    if (admitted === undefined) return slow();
    const { compiled } = admitted;

    if (message.method === "tools/list") {
      const result = await learnt(admitted, req, message.params as Json | undefined, era);
      if (result === false) return slow();
      const budget = await parts.charge(compiled.tenant);
      if (budget !== undefined && !budget.allowed)
        return writeResponse(elsewhere(res, frame), parts.refusal(serverId, budget));
      await parts.observeList(compiled.id);
      return answerKept(res, frame, result, id, budget, era);
    }

    const name = params.name;
    const args = params.arguments;
    if (
      typeof name !== "string" ||
      (era === "modern" ? name !== h["mcp-name"] : h["mcp-name"] !== undefined) ||
      !PLAIN_NAME.test(name) ||
      !(args === undefined || isPlainObject(args))
    )
      return slow();
    const tool = compiled.discovery ? undefined : compiled.tools.get(name);
    if (tool === undefined || !parts.runsDirectly(compiled, tool) || (isPlainObject(meta) && takesTaskOrProgress(meta)))
      return slow();
    // The envelope (and the Accept header) is one the SDK accepts: it answered a tools/list carrying it.
    if (!(await accepts(admitted, req, meta === undefined ? {} : { _meta: meta }, era))) return slow();
    const prepared = await parts.prepare(admitted, tool);
    if (prepared === undefined) return slow();
    const budget = await parts.charge(compiled.tenant);
    if (budget !== undefined && !budget.allowed)
      return writeResponse(elsewhere(res, frame), parts.refusal(serverId, budget));
    // The client closing its request cancels the call, as it does on the SDK path.
    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) abort.abort();
    };
    res.once("close", onClose);
    const outcome = await parts.callTool(admitted, tool, args, id, abort.signal, prepared, era);
    res.off("close", onClose);
    if (abort.signal.aborted) return;
    if (outcome.kind === "error") return answer(res, frame, errorMessage(id, outcome, era), budget, era);
    const encoded = encodeToolResult(outcome.result, compiled.serverInfo, era);
    if (encoded === undefined)
      return answer(
        res,
        frame,
        errorMessage(id, { kind: "error", code: -32603, message: "internal error: unexpected tool result shape" }, era),
        budget,
        era,
      );
    return answer(res, frame, resultMessage(encoded, id), budget, era);
  };
  return { handle, answered: () => answered };
};
