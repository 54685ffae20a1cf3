import { Schema } from "effect";

// The RFC 9457 problem body of docs/api-rules.md §2 as effect schemas: one general shape, and one per status
// with the status and the codes that status can carry, so a response is checked down to its code.

/** One problem of a failed validation, located by its JSON path (`server.providers[0].tools[1].id`). */
export const FieldProblem = Schema.Struct({
  path: Schema.String.annotations({ description: 'JSON path of the offending value; "" for the whole body' }),
  message: Schema.String,
}).annotations({ identifier: "FieldProblem" });

/** The error statuses the service answers, their titles and the codes each may carry. */
export const PROBLEM_STATUSES = {
  400: { name: "BadRequest", title: "Bad Request", codes: ["INVALID_ARGUMENT"] },
  401: { name: "Unauthorized", title: "Unauthorized", codes: ["UNAUTHENTICATED"] },
  403: { name: "Forbidden", title: "Forbidden", codes: ["PERMISSION_DENIED"] },
  404: { name: "NotFound", title: "Not Found", codes: ["NOT_FOUND"] },
  405: { name: "MethodNotAllowed", title: "Method Not Allowed", codes: ["METHOD_NOT_ALLOWED"] },
  409: { name: "Conflict", title: "Conflict", codes: ["ALREADY_EXISTS", "FAILED_PRECONDITION", "ABORTED"] },
  412: { name: "PreconditionFailed", title: "Precondition Failed", codes: ["PRECONDITION_FAILED"] },
  413: { name: "ContentTooLarge", title: "Content Too Large", codes: ["PAYLOAD_TOO_LARGE"] },
  415: { name: "UnsupportedMediaType", title: "Unsupported Media Type", codes: ["UNSUPPORTED_MEDIA_TYPE"] },
  429: { name: "TooManyRequests", title: "Too Many Requests", codes: ["RESOURCE_EXHAUSTED"] },
  500: { name: "InternalServerError", title: "Internal Server Error", codes: ["INTERNAL"] },
  503: { name: "ServiceUnavailable", title: "Service Unavailable", codes: ["UNAVAILABLE"] },
} as const;

export type ProblemStatus = keyof typeof PROBLEM_STATUSES;

/** Every problem code. */
export const PROBLEM_CODES = Object.values(PROBLEM_STATUSES).flatMap((s) => s.codes);

const problemFields = {
  type: Schema.Literal("about:blank"),
  title: Schema.String.annotations({ description: "the HTTP reason phrase of the status" }),
  status: Schema.Int.annotations({ description: "the HTTP status code" }),
  code: Schema.Literal(...PROBLEM_CODES).annotations({ description: "what went wrong, as a stable code" }),
  detail: Schema.String.annotations({ description: "a human-readable explanation of this occurrence" }),
  requestId: Schema.String.annotations({ description: "the X-Request-Id of the request, for the logs" }),
};

const errors = Schema.optionalWith(
  Schema.Array(FieldProblem).annotations({
    description: "every problem found (validation failures), or the first 100 of them (see errorCount)",
  }),
  { exact: true },
);
const errorCount = Schema.optionalWith(
  Schema.Int.annotations({
    description: "how many problems were found, present when `errors` lists only the first 100 of them",
  }),
  { exact: true },
);
const references = Schema.optionalWith(
  Schema.Array(Schema.String).annotations({ description: "ids of the records that block the change, where visible" }),
  { exact: true },
);

/** Any problem body the service writes. */
export const Problem = Schema.Struct({ ...problemFields, errors, errorCount, references }).annotations({
  identifier: "Problem",
  description: "RFC 9457 problem details (application/problem+json)",
});

/** The problem body of one status: that status, its codes, and the optional members it can carry. */
export const problemOf = (status: ProblemStatus) => {
  const { name, title, codes } = PROBLEM_STATUSES[status];
  return Schema.Struct({
    ...problemFields,
    title: Schema.Literal(title),
    status: Schema.Literal(status),
    code: Schema.Literal(...codes),
    // A validation failure always lists its problems.
    ...(status === 400
      ? {
          errors: Schema.Array(FieldProblem).annotations({
            description: "every problem found, or the first 100 of them (see errorCount)",
          }),
          errorCount,
        }
      : {}),
    ...(status === 409 ? { references } : {}),
  }).annotations({ identifier: `${name}Problem`, description: `RFC 9457 problem details of a ${status} answer` });
};
