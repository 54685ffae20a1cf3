import type { IncomingMessage, ServerResponse } from "node:http";

// Dynamic client registration (RFC 7591) is anonymous: anyone who can reach /oauth/register can store a
// client. This gate runs before oidc-provider sees the request and bounds what one registration may hold and
// how often registrations may come, so a flood neither fills the store nor registers redirects to any host.
// A client that is registered but never used expires (storage-adapter.ts).

export interface RegistrationLimits {
  /** Most bytes of one registration request's body. */
  readonly maxBytes: number;
  /** Most redirect URIs one client may register. */
  readonly maxRedirectUris: number;
  /** Registrations one client address may make per hour. */
  readonly perAddressPerHour: number;
  /** Registrations the whole instance accepts per hour. */
  readonly perHour: number;
  /** How long a registered client that has never been granted anything is kept. */
  readonly unusedClientTtlSeconds: number;
  /**
   * Redirect URIs other than https and loopback http (RFC 8252 §7.3) are accepted: plain http to any host,
   * private-use schemes of native apps. Off by default.
   */
  readonly allowAnyRedirectUri: boolean;
}

export const DEFAULT_REGISTRATION_LIMITS: RegistrationLimits = {
  maxBytes: 8 * 1024,
  maxRedirectUris: 10,
  perAddressPerHour: 20,
  perHour: 1_000,
  unusedClientTtlSeconds: 24 * 3600,
  allowAnyRedirectUri: false,
};

const HOUR_MS = 3600_000;

/** A redirect URI this server registers without the operator's leave: https, or http to a loopback address. */
export const redirectUriProblem = (value: unknown): string | undefined => {
  if (typeof value !== "string") return "must be a string";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not an absolute URL";
  }
  if (url.hash !== "") return "must not have a fragment";
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname)) return undefined;
  return "must be https, or http to a loopback address (127.0.0.1, [::1], localhost)";
};

const answer = (res: ServerResponse, status: number, error: string, description: string, retryAfter?: number) => {
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    ...(retryAfter === undefined ? {} : { "Retry-After": String(retryAfter) }),
  });
  res.end(JSON.stringify({ error, error_description: description }));
};

/** One fixed window of counts per key; the whole map is dropped when the window ends (bounded memory). */
const hourlyCounter = (now: () => number) => {
  let windowStart = now();
  const counts = new Map<string, number>();
  return {
    /** Counts one for `key` when it stays within `limit`; the seconds until the window ends otherwise. */
    take: (key: string, limit: number): number | undefined => {
      const at = now();
      if (at - windowStart >= HOUR_MS) {
        windowStart = at;
        counts.clear();
      }
      const used = counts.get(key) ?? 0;
      if (used >= limit) return Math.max(1, Math.ceil((windowStart + HOUR_MS - at) / 1000));
      counts.set(key, used + 1);
      return undefined;
    },
  };
};

/**
 * The gate of `POST /oauth/register`: answers the request itself (400, 413 or 429, RFC 7591 error body) and
 * returns false, or reads the body, leaves it on `req.body` for oidc-provider, and returns true.
 */
export const registrationGate = (
  limits: RegistrationLimits,
  addressOf: (req: IncomingMessage) => string = (req) => req.socket.remoteAddress ?? "",
  now: () => number = Date.now,
) => {
  const counter = hourlyCounter(now);
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > limits.maxBytes) {
      answer(res, 413, "invalid_request", `a registration may be at most ${limits.maxBytes} bytes`);
      req.resume();
      return false;
    }
    const chunks: Array<Buffer> = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limits.maxBytes) {
        answer(res, 413, "invalid_request", `a registration may be at most ${limits.maxBytes} bytes`);
        req.resume();
        return false;
      }
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    let metadata: unknown;
    try {
      metadata = JSON.parse(body.toString("utf8"));
    } catch {
      metadata = undefined;
    }
    if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)) {
      const uris = (metadata as Record<string, unknown>).redirect_uris;
      if (Array.isArray(uris) && uris.length > limits.maxRedirectUris) {
        answer(
          res,
          400,
          "invalid_redirect_uri",
          `a client may register at most ${limits.maxRedirectUris} redirect URIs (redirect_uris holds ${uris.length})`,
        );
        return false;
      }
      if (Array.isArray(uris) && !limits.allowAnyRedirectUri)
        for (const [i, uri] of uris.entries()) {
          const problem = redirectUriProblem(uri);
          if (problem !== undefined) {
            answer(res, 400, "invalid_redirect_uri", `redirect_uris[${i}] ${problem}`);
            return false;
          }
        }
    }
    // Counted once the request is well-formed enough to store a client; the instance's budget last.
    const address = counter.take(`address:${addressOf(req)}`, limits.perAddressPerHour);
    const global = address === undefined ? counter.take("all", limits.perHour) : undefined;
    const retryAfter = address ?? global;
    if (retryAfter !== undefined) {
      answer(
        res,
        429,
        "invalid_request",
        address !== undefined
          ? `at most ${limits.perAddressPerHour} client registrations per hour from one address`
          : `at most ${limits.perHour} client registrations per hour`,
        retryAfter,
      );
      return false;
    }
    // oidc-provider reads a body already read from `req.body`.
    (req as IncomingMessage & { body?: Buffer }).body = body;
    return true;
  };
};
