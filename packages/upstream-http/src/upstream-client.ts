import { Data, Either } from "effect";
import type { Dispatcher } from "undici";
import { errors, request } from "undici";
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

/** Reads at most `cap` bytes of a body, then stops reading (and closes the stream). */
const readCapped = async (
  body: Dispatcher.ResponseData["body"],
  cap: number,
  onChunk: ((chunk: Buffer) => void) | undefined,
) => {
  const chunks: Array<Buffer> = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    onChunk?.(buf);
    if (size + buf.length > cap) {
      chunks.push(buf.subarray(0, cap - size));
      size = cap;
      truncated = true;
      body.destroy();
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  return { body: Buffer.concat(chunks, size), truncated };
};

/** Where a `202 Accepted` says its operation can be watched (Azure's `Operation-Location` first). */
const acceptedHeaders = (headers: Dispatcher.ResponseData["headers"]) => ({
  location: firstHeader(headers["operation-location"]) || firstHeader(headers.location),
  retryAfter: firstHeader(headers["retry-after"]),
});

/** Performs one upstream exchange under `limits` through `dispatcher` (which enforces the network policy). */
export const callUpstream = async (
  dispatcher: Dispatcher,
  call: UpstreamCall,
  limits: UpstreamLimits,
): Promise<UpstreamOutcome> => {
  // One controller and one timer per exchange (AbortSignal.timeout and AbortSignal.any cost several times more).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException("upstream deadline", "TimeoutError"));
  }, limits.timeoutMs);
  const outer = call.signal;
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", onAbort, { once: true });
  const signal = controller.signal;
  let url = call.url;
  let method = call.method;
  let body = call.body;
  try {
    for (let hop = 0; ; hop++) {
      const response = await request(url, {
        dispatcher,
        method: method as Dispatcher.HttpMethod,
        headers: call.headers.flat(),
        ...(body !== undefined ? { body } : {}),
        signal,
        headersTimeout: limits.timeoutMs,
        bodyTimeout: limits.timeoutMs,
      });
      const location = firstHeader(response.headers.location);
      if (response.statusCode >= 300 && response.statusCode < 400 && location !== "") {
        await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
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
      const contentType = firstHeader(response.headers["content-type"]);
      const onChunk =
        call.onEventStream !== undefined && contentType.toLowerCase().startsWith("text/event-stream")
          ? call.onEventStream
          : undefined;
      const read =
        method === "HEAD"
          ? { body: Buffer.alloc(0), truncated: false }
          : await readCapped(response.body, limits.maxResponseBytes, onChunk);
      return Either.right({
        status: response.statusCode,
        statusText: STATUS_TEXT[response.statusCode] ?? "",
        contentType,
        ...read,
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
