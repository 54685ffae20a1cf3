import { Data, Either } from "effect";
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher } from "undici";
import { errors } from "undici";
import { refusedIn } from "./network-policy.js";

// One untrusted upstream HTTP exchange: a deadline over the whole exchange, a cap on the body read, and
// redirects followed only within the same origin. The dispatcher carries the network policy.

export interface UpstreamLimits {
  /** Whole-exchange deadline (connect, headers and body), in ms. */
  readonly timeoutMs: number;
  /** Largest response body kept; the rest is dropped and `truncated` set. */
  readonly maxResponseBytes: number;
}

export interface UpstreamCall {
  readonly method: string;
  readonly url: URL;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: string | Uint8Array | undefined;
  /** Aborts the exchange (the MCP client went away or cancelled). */
  readonly signal?: AbortSignal | undefined;
  /** Sees each chunk of a `text/event-stream` answer as it arrives (the body is still collected, capped). */
  readonly onEventStream?: ((chunk: Buffer) => void) | undefined;
}

export interface UpstreamResponse {
  readonly status: number;
  readonly statusText: string;
  readonly contentType: string;
  readonly body: Buffer;
  readonly truncated: boolean;
  /** The URL that answered (after same-origin redirects). */
  readonly url: URL;
  /** Of a `202 Accepted` only: its `Operation-Location` (else `Location`) and `Retry-After` headers. */
  readonly accepted?: { readonly location: string; readonly retryAfter: string } | undefined;
}

/** Why an exchange produced no response; `message` is safe to show to the MCP client. */
export class UpstreamFailure extends Data.TaggedError("UpstreamFailure")<{
  /** `status` and `size`: an answer came, but not one that can be used (reading resources only). */
  readonly kind: "timeout" | "refused" | "redirect" | "cancelled" | "network" | "status" | "size";
  readonly message: string;
}> {}

/** The upstream's response, or why there is none. */
export type UpstreamOutcome = Either.Either<UpstreamResponse, UpstreamFailure>;

const MAX_REDIRECTS = 5;

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

const firstHeader = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? (value[0] ?? "") : (value ?? "");

/** What one HTTP exchange gave: its status and headers, and its body read up to a cap. */
interface Exchanged {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly truncated: boolean;
}

/** Where a 3xx answer sends the caller; "" for any other answer (a 3xx without a Location is an answer). */
const redirectLocation = (statusCode: number, headers: IncomingHttpHeaders): string =>
  statusCode >= 300 && statusCode < 400 ? firstHeader(headers.location) : "";

/** Of a redirect, no more than this is read (and nothing kept) before the connection is let go. */
const REDIRECT_BODY_CAP = 64 * 1024;

/**
 * One exchange as undici's dispatch handler: the body collected in place, no stream or async iterator between
 * the socket and the buffer (undici's `request` cost twice the CPU per call, docs/performance.md). It settles
 * once: with the answer at its end or at the cap (the rest is not read: the connection is closed), or with
 * the first error or `abort`.
 */
class CappedExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private abortedWith: Error | undefined;
  private settled = false;
  private statusCode = 0;
  private headers: IncomingHttpHeaders = {};
  private readonly chunks: Array<Buffer> = [];
  private size = 0;
  private cap: number;
  private keep = true;
  private onChunk: ((chunk: Buffer) => void) | undefined;

  constructor(
    cap: number,
    private readonly onEventStream: ((chunk: Buffer) => void) | undefined,
    private readonly resolve: (answer: Exchanged) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.cap = cap;
  }

  /** Ends the exchange with `reason`: now when it is under way, else as soon as undici starts it. */
  abort(reason: Error): void {
    if (this.abortedWith !== undefined) return;
    this.abortedWith = reason;
    this.controller?.abort(reason);
    this.fail(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortedWith !== undefined) controller.abort(this.abortedWith);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.statusCode = statusCode;
    this.headers = headers;
    if (redirectLocation(statusCode, headers) !== "") {
      // A redirect's body is drained a little for the connection's sake, never kept.
      this.cap = REDIRECT_BODY_CAP;
      this.keep = false;
    } else if (
      this.onEventStream !== undefined &&
      firstHeader(headers["content-type"]).toLowerCase().startsWith("text/event-stream")
    )
      this.onChunk = this.onEventStream;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.onChunk?.(chunk);
    if (this.size + chunk.length > this.cap) {
      if (this.keep) this.chunks.push(chunk.subarray(0, this.cap - this.size));
      this.size = this.cap;
      this.finish(true);
      controller.abort(new Error("upstream answer over the size cap: not read further"));
      return;
    }
    if (this.keep) this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    this.finish(false);
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    this.fail(error);
  }

  private finish(truncated: boolean): void {
    if (this.settled) return;
    this.settled = true;
    const body = this.keep ? Buffer.concat(this.chunks, this.size) : Buffer.alloc(0);
    this.resolve({ statusCode: this.statusCode, headers: this.headers, body, truncated });
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }
}

/** Where a `202 Accepted` says its operation can be watched (Azure's `Operation-Location` first). */
const acceptedHeaders = (headers: IncomingHttpHeaders) => ({
  location: firstHeader(headers["operation-location"]) || firstHeader(headers.location),
  retryAfter: firstHeader(headers["retry-after"]),
});

/** Performs one upstream exchange under `limits` through `dispatcher` (which enforces the network policy). */
export const callUpstream = async (
  dispatcher: Dispatcher,
  call: UpstreamCall,
  limits: UpstreamLimits,
): Promise<UpstreamOutcome> => {
  // The hop under way: the deadline and the caller's cancellation end it.
  let current: CappedExchange | undefined;
  let stoppedWith: Error | undefined;
  const stop = (reason: Error) => {
    stoppedWith ??= reason;
    current?.abort(reason);
  };
  // One timer per exchange (AbortSignal.timeout and AbortSignal.any cost several times more).
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop(new DOMException("upstream deadline", "TimeoutError"));
  }, limits.timeoutMs);
  const outer = call.signal;
  const onAbort = () => stop(abortReason(outer));
  if (outer?.aborted) onAbort();
  else outer?.addEventListener("abort", onAbort, { once: true });
  let url = call.url;
  let method = call.method;
  let body = call.body;
  const headers = call.headers.flat();
  try {
    for (let hop = 0; ; hop++) {
      const response = await new Promise<Exchanged>((resolve, reject) => {
        const exchange = new CappedExchange(limits.maxResponseBytes, call.onEventStream, resolve, reject);
        current = exchange;
        if (stoppedWith !== undefined) return exchange.abort(stoppedWith);
        dispatcher.dispatch(
          {
            origin: url.origin,
            path: `${url.pathname}${url.search}`,
            method: method as Dispatcher.HttpMethod,
            headers,
            body: body ?? null,
            headersTimeout: limits.timeoutMs,
            bodyTimeout: limits.timeoutMs,
          },
          exchange,
        );
      });
      const location = redirectLocation(response.statusCode, response.headers);
      if (location !== "") {
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          return Either.left(
            new UpstreamFailure({ kind: "redirect", message: `upstream redirected to an invalid location` }),
          );
        }
        if (next.origin !== url.origin)
          return Either.left(
            new UpstreamFailure({
              kind: "redirect",
              message: `upstream redirected (HTTP ${response.statusCode}) to another host (${next.origin}); not followed`,
            }),
          );
        if (hop + 1 >= MAX_REDIRECTS)
          return Either.left(
            new UpstreamFailure({ kind: "redirect", message: `upstream redirected more than ${MAX_REDIRECTS} times` }),
          );
        // 307/308 keep the method and body; the others turn into a GET without a body (as browsers do).
        if (response.statusCode !== 307 && response.statusCode !== 308 && method !== "HEAD") {
          method = "GET";
          body = undefined;
        }
        url = next;
        continue;
      }
      return Either.right({
        status: response.statusCode,
        statusText: STATUS_TEXT[response.statusCode] ?? "",
        contentType: firstHeader(response.headers["content-type"]),
        body: response.body,
        truncated: response.truncated,
        url,
        ...(response.statusCode === 202 ? { accepted: acceptedHeaders(response.headers) } : {}),
      });
    }
  } catch (error) {
    const refused = refusedIn(error);
    if (refused) return Either.left(new UpstreamFailure({ kind: "refused", message: refused.message }));
    if (timedOut || error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError)
      return Either.left(
        new UpstreamFailure({ kind: "timeout", message: `upstream did not answer within ${limits.timeoutMs} ms` }),
      );
    if (call.signal?.aborted)
      return Either.left(new UpstreamFailure({ kind: "cancelled", message: "the request was cancelled" }));
    if (error instanceof errors.ConnectTimeoutError)
      return Either.left(new UpstreamFailure({ kind: "timeout", message: `could not connect to ${url.host} in time` }));
    const code = (error as { code?: string }).code;
    return Either.left(
      new UpstreamFailure({ kind: "network", message: `could not reach ${url.host}${code ? ` (${code})` : ""}` }),
    );
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
  }
};

/** Why a signal aborted, as an Error (what undici aborts a request with). */
const abortReason = (signal: AbortSignal | undefined): Error =>
  signal?.reason instanceof Error ? signal.reason : new DOMException("the request was cancelled", "AbortError");
