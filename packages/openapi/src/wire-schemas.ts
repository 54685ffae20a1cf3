import { Schema } from "effect";

// Shapes of the HTTP layer that are not domain records: headers and the bodies of the reserved paths.

/** `ETag` of a versioned record: a weak tag of its revision. */
export const EntityTag = Schema.String.pipe(Schema.pattern(/^W\/"[0-9]+"$/)).annotations({
  description: 'W/"<version>": the record\'s revision (for variables, their update time in epoch milliseconds)',
});

/** `If-Match`: one entity tag (weak or strong), or `*`. */
export const IfMatch = Schema.String.annotations({
  description: 'W/"<version>", "<version>" or *; the write applies only if the record is at that revision (else 412)',
});

/** `X-Request-Id`: the caller's id when it is a sane token, else one made by the service. */
export const RequestId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9._:-]{1,128}$/)).annotations({
  description: "the caller's X-Request-Id when it is 1–128 of [A-Za-z0-9._:-], else a new one",
});

/** `Location` of a created record. */
export const Location = Schema.String.annotations({ description: "the path of the created record" });

/** `WWW-Authenticate` of a 401 or 403. */
export const WwwAuthenticate = Schema.String.annotations({
  description: 'Bearer error="invalid_token" (401), or Bearer error="insufficient_scope", scope="<needed>" (403)',
});

/** `Retry-After` of a rate-limited 429, in seconds. */
export const RetryAfter = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
  description: "seconds to wait before retrying",
});

/** `RateLimit-Limit`: requests per window of the budget the answer reports. */
export const RateLimitLimit = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
  description: "requests allowed per window (the steady budget; a burst allowance comes on top)",
});

/** `RateLimit-Remaining`. */
export const RateLimitRemaining = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
  description: "requests left in the current window",
});

/** `RateLimit-Reset`. */
export const RateLimitReset = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
  description: "seconds until the window restarts",
});

/** `RateLimit-Policy`. */
export const RateLimitPolicy = Schema.String.pipe(Schema.pattern(/^\d+;w=\d+$/)).annotations({
  description: "the budget as `<requests>;w=<window seconds>`",
});

/** `Allow` of a 405: the methods the path supports. */
export const Allow = Schema.String.annotations({ description: "comma-separated methods the path supports" });

/** `GET /healthz`. */
export const Health = Schema.Struct({ status: Schema.Literal("ok") }).annotations({ identifier: "Health" });

/** `GET /readyz` when the store answers. */
export const Readiness = Schema.Struct({ status: Schema.Literal("ready") }).annotations({ identifier: "Readiness" });

/** A public JSON Web Key (RFC 7517) as the dev-auth key set publishes it: never a private member. */
export const PublicJwk = Schema.Struct({
  kty: Schema.String,
  kid: Schema.optionalWith(Schema.String, { exact: true }),
  alg: Schema.optionalWith(Schema.String, { exact: true }),
  use: Schema.optionalWith(Schema.String, { exact: true }),
  crv: Schema.optionalWith(Schema.String, { exact: true }),
  x: Schema.optionalWith(Schema.String, { exact: true }),
  y: Schema.optionalWith(Schema.String, { exact: true }),
  n: Schema.optionalWith(Schema.String, { exact: true }),
  e: Schema.optionalWith(Schema.String, { exact: true }),
}).annotations({ identifier: "PublicJwk" });

/** `GET /.well-known/jwks.json` in dev-auth mode. */
export const JwkSet = Schema.Struct({ keys: Schema.Array(PublicJwk) }).annotations({ identifier: "JwkSet" });

/** `GET /openapi.json`: an OpenAPI 3.1 document (this one). */
export const OpenApiObject = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  jsonSchema: { type: "object", additionalProperties: true, description: "an OpenAPI 3.1 document" },
});

/** `GET /docs`: an HTML page. */
export const HtmlPage = Schema.String.annotations({ description: "an HTML page" });

/** The name of a file of the API reference page. */
export const AssetName = Schema.String.annotations({ description: "file name" });

/** RFC 9728 protected resource metadata of an MCP endpoint. */
export const ResourceMetadata = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  jsonSchema: {
    type: "object",
    additionalProperties: true,
    description: "OAuth 2.0 protected resource metadata (RFC 9728)",
  },
});

/** A file of the API reference page (script, style sheet, page, icon). */
export const Asset = Schema.String.annotations({ description: "the file's content" });
