import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";
import { type Dispatcher, request } from "undici";

// isomorphic-git's HTTP transport, over undici with the dispatcher the service gives it: the one that
// checks every connection against the outbound address policy (the MCP runtime's policyAgent), so a git
// host is reached under the same rules as an upstream API (docs/api-rules.md §17).

/** Limits of one git HTTP exchange. */
export interface GitHttpLimits {
  /** Headers and each body chunk must arrive within this many ms. */
  readonly timeoutMs: number;
  /** A response body larger than this fails the exchange (a repository too large to sync). */
  readonly maxResponseBytes: number;
}

export const DEFAULT_GIT_HTTP_LIMITS: GitHttpLimits = { timeoutMs: 30_000, maxResponseBytes: 256 * 1024 * 1024 };

async function* once(chunk: Uint8Array): AsyncIterableIterator<Uint8Array> {
  yield chunk;
}

const collect = async (body: AsyncIterable<Uint8Array> | undefined): Promise<Buffer | undefined> => {
  if (body === undefined) return undefined;
  const chunks: Array<Uint8Array> = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
};

/** The response of a failed exchange is too large to hold: stop reading. */
export class GitResponseTooLarge extends Error {
  readonly code = "ERR_GIT_RESPONSE_TOO_LARGE";
}

/** An isomorphic-git HttpClient sending through `dispatcher`, no redirects followed, bounded in time and size. */
export const gitHttpClient = (dispatcher: Dispatcher, limits: GitHttpLimits = DEFAULT_GIT_HTTP_LIMITS): HttpClient => ({
  request: async (req: GitHttpRequest): Promise<GitHttpResponse> => {
    const body = await collect(req.body);
    const response = await request(req.url, {
      method: (req.method ?? "GET") as Dispatcher.HttpMethod,
      headers: req.headers ?? {},
      ...(body === undefined ? {} : { body }),
      dispatcher,
      headersTimeout: limits.timeoutMs,
      bodyTimeout: limits.timeoutMs,
    });
    const chunks: Array<Buffer> = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limits.maxResponseBytes) {
        response.body.destroy();
        throw new GitResponseTooLarge(`the git host answered more than ${limits.maxResponseBytes} bytes`);
      }
      chunks.push(chunk);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    return {
      url: req.url,
      method: req.method ?? "GET",
      statusCode: response.statusCode,
      statusMessage: String(response.statusCode),
      headers,
      body: once(new Uint8Array(Buffer.concat(chunks))),
    };
  },
});
