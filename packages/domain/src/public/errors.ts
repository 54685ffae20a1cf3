// @mcpsm/domain/errors: the typed errors every use case fails with. Map them to a transport once (HTTP
// status, JSON-RPC code); anything else that escapes a use case is a defect.

export {
  Aborted,
  AlreadyExists,
  ConfigurationFault,
  type DomainError,
  FailedPrecondition,
  type FieldProblem,
  InvalidArgument,
  NotFound,
  PermissionDenied,
  PreconditionFailed,
  ResourceExhausted,
  Unauthenticated,
  Unavailable,
} from "../errors/domain-errors.js";
