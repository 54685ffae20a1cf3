// CORS for browser-based MCP clients (the Inspector's web UI, web playgrounds). Which origins may call is the
// DNS-rebinding allow-list (MCP_ALLOWED_ORIGINS), checked before anything else: an allowed origin gets its
// preflight answered without a credential (browsers never send one on a preflight) and may read the headers an
// MCP client needs — the 401 challenge that starts OAuth discovery and the transport's own headers. Bearer
// tokens, never cookies: no credentials mode.

/** What a browser client may send besides the CORS-safelisted headers. */
const ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "Accept",
  "Mcp-Session-Id",
  "MCP-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
  "Last-Event-ID",
];

/** What a browser client may read of an answer besides the CORS-safelisted headers. */
export const EXPOSED_HEADERS = [
  "WWW-Authenticate",
  "Mcp-Session-Id",
  "MCP-Protocol-Version",
  "Retry-After",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "RateLimit-Policy",
].join(", ");

const METHODS = "GET, POST, DELETE, OPTIONS";

/**
 * The preflight answer for an origin already checked against the allow-list: 204 with what it may send. The
 * headers it asks for are granted when they are plain header names (clients add tracing headers and the
 * like); without the question, the MCP headers are listed.
 */
export const preflightResponse = (request: Request): Response => {
  const origin = request.headers.get("origin");
  if (origin === null) return new Response(null, { status: 204, headers: { Allow: METHODS } });
  const asked = request.headers.get("access-control-request-headers");
  const headers =
    asked !== null && /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/.test(asked.trim())
      ? asked.trim()
      : ALLOWED_HEADERS.join(", ");
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Origin": origin,
      "Access-Control-Allow-Methods": METHODS,
      "Access-Control-Allow-Headers": headers,
      "Access-Control-Max-Age": "600",
      Vary: "Origin, Access-Control-Request-Headers",
    },
  });
};

/** `response` readable by the (allowed) origin of `request`; unchanged when the request has no Origin. */
export const withCors = (request: Request, response: Response): Response => {
  const origin = request.headers.get("origin");
  if (origin === null) return response;
  const set = (target: Response) => {
    target.headers.set("Access-Control-Allow-Origin", origin);
    target.headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    target.headers.append("Vary", "Origin");
    return target;
  };
  try {
    return set(response);
  } catch {
    // Immutable headers (a fetched response): answer with a copy.
    return set(new Response(response.body, response));
  }
};
