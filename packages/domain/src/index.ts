/**
 * @mcpsm/domain: the records, validation rules, scope policy, typed errors, use cases and storage port of
 * the MCP server manager. Pure: no web framework, ORM or database driver.
 *
 * This entry point is the Promise facade and what it takes and throws. Everything else has a subpath:
 * `@mcpsm/domain/use-cases` (the use cases as effects), `/schemas` (wire shapes and decoders), `/errors`,
 * `/storage` (the port adapters implement), `/mcp` (serving rules) and `/testing`.
 */

/** Every use case as an async function of `(actor, input)`; see `createManagement`. */
export { createManagement, type Management, type ManagementOptions } from "./management/create-management.js";
/** Who is calling: the tenant that owns the records and the scopes its token granted. */
export type { Actor } from "./tenancy/actor.js";
/** Every scope of the API, and the type of one. */
export { ALL_SCOPES, Scope } from "./scopes/scope.js";
/** A secret cipher over AES-256-GCM keys (32 bytes; previous keys still decrypt). */
export { aesGcmCipher } from "./secrets/secret-cipher.js";
/** A signer of page tokens over an HMAC-SHA-256 key. */
export { hmacPageTokenSigner } from "./secrets/page-token-signer.js";
/** The typed errors a use case rejects with (`DomainError` is their union; `_tag` tells them apart). */
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
} from "./errors/domain-errors.js";
