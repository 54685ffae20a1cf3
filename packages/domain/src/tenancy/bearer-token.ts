import { Unauthenticated } from "../errors/domain-errors.js";

// The one reading of `Authorization: Bearer <token>` (RFC 6750 §2.1), shared by the management API and the
// MCP endpoint: the scheme is case-insensitive, the token is b64token syntax, nothing else may follow.

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of a present Authorization header value, or Unauthenticated when it is not `Bearer <token>`. */
export const bearerToken = (authorization: string): string | Unauthenticated =>
  BEARER.exec(authorization)?.[1] ??
  new Unauthenticated({ detail: "the Authorization header must be 'Bearer <token>'" });
