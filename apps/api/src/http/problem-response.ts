import type { DomainError } from "@mcpsm/domain/errors";

/** An RFC 9457 problem body as this service writes it. */
export interface Problem {
  readonly type: "about:blank";
  readonly title: string;
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly requestId: string;
  readonly errors?: ReadonlyArray<{ readonly path: string; readonly message: string }>;
  readonly references?: ReadonlyArray<string>;
}

/** A problem to send: its status, body fields and extra headers. */
export interface ProblemResponse {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly errors?: Problem["errors"];
  readonly references?: Problem["references"];
}

/** The one place where a domain error becomes an HTTP status, code and headers (docs/api-rules.md §2). */
export const problemFor = (error: DomainError): ProblemResponse => {
  switch (error._tag) {
    case "InvalidArgument":
      return {
        status: 400,
        code: "INVALID_ARGUMENT",
        title: "Bad Request",
        detail: error.detail,
        errors: error.errors,
      };
    case "Unauthenticated":
      return {
        status: 401,
        code: "UNAUTHENTICATED",
        title: "Unauthorized",
        detail: error.detail,
        headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
      };
    case "PermissionDenied":
      return {
        status: 403,
        code: "PERMISSION_DENIED",
        title: "Forbidden",
        detail: error.detail,
        ...(error.requiredScope === undefined
          ? {}
          : { headers: { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${error.requiredScope}"` } }),
      };
    case "NotFound":
      return {
        status: 404,
        code: "NOT_FOUND",
        title: "Not Found",
        detail: `${error.kind} '${error.id}' does not exist`,
      };
    case "AlreadyExists":
      return { status: 409, code: "ALREADY_EXISTS", title: "Conflict", detail: error.detail };
    case "FailedPrecondition":
      return {
        status: 409,
        code: "FAILED_PRECONDITION",
        title: "Conflict",
        detail: error.detail,
        references: error.references,
      };
    case "Aborted":
      return { status: 409, code: "ABORTED", title: "Conflict", detail: error.detail };
    case "PreconditionFailed":
      return { status: 412, code: "PRECONDITION_FAILED", title: "Precondition Failed", detail: error.detail };
    case "ResourceExhausted":
      return {
        status: 429,
        code: "RESOURCE_EXHAUSTED",
        title: "Too Many Requests",
        detail: error.detail,
        ...(error.retryAfterSeconds === undefined
          ? {}
          : { headers: { "Retry-After": String(error.retryAfterSeconds) } }),
      };
    case "Unavailable":
      return { status: 503, code: "UNAVAILABLE", title: "Service Unavailable", detail: error.detail };
    case "ConfigurationFault":
      return { status: 500, code: "INTERNAL", title: "Internal Server Error", detail: error.detail };
  }
};

/** Problems that arise in the HTTP layer itself, before any use case runs. */
export const httpProblems = {
  notFound: (path: string): ProblemResponse => ({
    status: 404,
    code: "NOT_FOUND",
    title: "Not Found",
    detail: `no resource at '${path}'`,
  }),
  methodNotAllowed: (method: string, allow: string): ProblemResponse => ({
    status: 405,
    code: "METHOD_NOT_ALLOWED",
    title: "Method Not Allowed",
    detail: `${method} is not allowed here; allowed: ${allow}`,
    headers: { Allow: allow },
  }),
  payloadTooLarge: (limit: number): ProblemResponse => ({
    status: 413,
    code: "PAYLOAD_TOO_LARGE",
    title: "Content Too Large",
    detail: `the request body is larger than ${limit} bytes`,
  }),
  unsupportedMediaType: (): ProblemResponse => ({
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
    title: "Unsupported Media Type",
    detail: "request bodies must be application/json (UTF-8)",
  }),
  internal: (): ProblemResponse => ({
    status: 500,
    code: "INTERNAL",
    title: "Internal Server Error",
    detail: "an unexpected error occurred; the request id identifies it in the logs",
  }),
} as const;
