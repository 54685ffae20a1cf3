import { Data } from "effect";

/** One problem found while validating input, located by a JSON path such as `server.providers[0].id`. */
export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/** The request is malformed or breaks a validation rule; lists every problem found. */
export class InvalidArgument extends Data.TaggedError("InvalidArgument")<{
  readonly detail: string;
  readonly errors: ReadonlyArray<FieldProblem>;
  /** How many problems were found, when `errors` lists only the first of them. */
  readonly errorCount?: number;
}> {}

/** The caller is not authenticated (no, invalid or expired credential). */
export class Unauthenticated extends Data.TaggedError("Unauthenticated")<{
  readonly detail: string;
}> {}

/** The caller is authenticated but may not do this (missing scope, or another tenant's PUBLIC record). */
export class PermissionDenied extends Data.TaggedError("PermissionDenied")<{
  readonly detail: string;
  /** The scope that would have allowed the operation, when a scope is what is missing. */
  readonly requiredScope?: string;
}> {}

/** The record does not exist or is not visible to the caller (the two are indistinguishable on purpose). */
export class NotFound extends Data.TaggedError("NotFound")<{
  readonly kind: string;
  readonly id: string;
}> {}

/** A unique name is already taken. */
export class AlreadyExists extends Data.TaggedError("AlreadyExists")<{
  readonly detail: string;
}> {}

/** The change is blocked by the state of other records (references). */
export class FailedPrecondition extends Data.TaggedError("FailedPrecondition")<{
  readonly detail: string;
  /** Ids of the referencing records that the caller may see. */
  readonly references: ReadonlyArray<string>;
}> {}

/** A write carried a `version` that does not match the stored revision. */
export class Aborted extends Data.TaggedError("Aborted")<{
  readonly detail: string;
}> {}

/** An `If-Match` precondition did not hold. */
export class PreconditionFailed extends Data.TaggedError("PreconditionFailed")<{
  readonly detail: string;
}> {}

/** A per-tenant quota or rate limit is exhausted. */
export class ResourceExhausted extends Data.TaggedError("ResourceExhausted")<{
  readonly detail: string;
  readonly retryAfterSeconds?: number;
}> {}

/** The storage (or another dependency) cannot be reached right now. */
export class Unavailable extends Data.TaggedError("Unavailable")<{
  readonly detail: string;
}> {}

/** Every error a use case may fail with. Anything else is a defect (HTTP 500). */
export type DomainError =
  | InvalidArgument
  | Unauthenticated
  | PermissionDenied
  | NotFound
  | AlreadyExists
  | FailedPrecondition
  | Aborted
  | PreconditionFailed
  | ResourceExhausted
  | Unavailable
  | ConfigurationFault;

/** Shorthand for an InvalidArgument with a single located problem. */
export const invalidField = (path: string, message: string): InvalidArgument =>
  new InvalidArgument({ detail: `${path}: ${message}`, errors: [{ path, message }] });

/**
 * The service's own configuration cannot serve the request (a stored secret is under an encryption key the
 * service was not given). Not the caller's fault and not an outage: retrying does not help until an operator
 * fixes the configuration, so it is answered as an internal error and logged loudly.
 */
export class ConfigurationFault extends Data.TaggedError("ConfigurationFault")<{
  readonly detail: string;
}> {}
