import { type Dispatcher, fetch as undiciFetch } from "undici";
import { refusedIn } from "./network-policy.js";
import type { UpstreamLimits } from "./upstream-client.js";
import type { PolicyFetch } from "./upstream-authorization.js";

// Outbound HTTP for authorization servers (`tokenURL`, metadata), under exactly the rules of upstream calls:
// the policy dispatcher (no loopback, private or link-local address unless allowed), the upstream deadline,
// the body cap, and no redirects (a token endpoint that redirects is answered as it is). A failure is thrown
// as an Error whose message is safe to show (it names the host, never a credential).

const codeIn = (error: unknown): string | undefined => {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && !code.startsWith("UND_ERR_ABORTED")) return code;
  }
  return undefined;
};

/** Reads at most `cap` bytes; a larger body is an error (a token answer is small). */
const readCapped = async (body: ReadableStream<Uint8Array> | null, cap: number): Promise<Uint8Array> => {
  if (body === null) return new Uint8Array(0);
  const chunks: Array<Uint8Array> = [];
  let size = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > cap) {
      await body.cancel().catch(() => undefined);
      throw new Error(`the answer is larger than ${cap} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
};

/** A fetch through `dispatcher` under `limits`; the answer is a standard (global) Response with its body read. */
export const policyFetch =
  (dispatcher: Dispatcher, limits: UpstreamLimits): PolicyFetch =>
  async (url, init = {}) => {
    const target = new URL(url);
    const deadline = AbortSignal.timeout(limits.timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    try {
      const response = await undiciFetch(target, {
        method: init.method ?? "GET",
        headers: [...new Headers(init.headers).entries()],
        ...(init.body !== undefined && init.body !== null ? { body: String(init.body) } : {}),
        redirect: "manual",
        dispatcher,
        signal,
      });
      const body = await readCapped(response.body as ReadableStream<Uint8Array> | null, limits.maxResponseBytes);
      const nullBody = response.status === 204 || response.status === 304;
      return new Response(nullBody ? null : body, {
        status: response.status,
        statusText: response.statusText,
        headers: [...response.headers.entries()],
      });
    } catch (error) {
      const refused = refusedIn(error);
      if (refused) throw new Error(refused.message);
      if (deadline.aborted) throw new Error(`${target.host} did not answer within ${limits.timeoutMs} ms`);
      if (init.signal?.aborted) throw new Error("the request was cancelled");
      if (error instanceof Error && error.message.startsWith("the answer is larger")) throw error;
      const code = codeIn(error);
      throw new Error(`could not reach ${target.host}${code ? ` (${code})` : ""}`);
    }
  };
