import { Data } from "effect";

// How the adapter tells database errors apart. Constraint breaches are expected outcomes and travel as a
// typed failure (`ConstraintBreach`) until the operation maps them to the port's UniqueViolation or
// ReferenceViolation. Everything else is a defect of the operation, of which two kinds are recognised at
// the transaction boundary: the database being unreachable (→ the domain's Unavailable, HTTP 503) and a
// transient conflict (deadlock, serialization failure) that is worth running the transaction again for.

/**
 * A statement broke a unique (23505) or foreign key constraint (23503; 23001 for ON DELETE RESTRICT on
 * PostgreSQL 17 and later, reported here as 23503 too).
 */
export class ConstraintBreach extends Data.TaggedError("ConstraintBreach")<{
  readonly code: "23505" | "23503";
  readonly constraint: string;
  readonly detail: string;
}> {}

/** The database could not be reached or dropped the connection (a defect inside an operation). */
export class DatabaseUnreachable extends Data.TaggedError("DatabaseUnreachable")<{
  readonly reason: string;
}> {}

/**
 * A round trip carrying a write that was expected to succeed (`Runner.expect`) failed: the transaction is
 * rolled back and run again, the write then sent on its own so that its caller reads its real answer.
 */
export class ExpectedWriteRefused extends Data.TaggedError("ExpectedWriteRefused")<{
  readonly reason: string;
}> {}

/** A deadlock or serialization failure: running the whole transaction again may succeed. */
export class TransientConflict extends Data.TaggedError("TransientConflict")<{
  readonly reason: string;
}> {}

interface PgLikeError {
  readonly code?: unknown;
  readonly constraint?: unknown;
  readonly detail?: unknown;
  readonly message?: unknown;
  readonly errors?: unknown;
}

/** Node socket error codes meaning "no usable connection to the server". */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOENT", // a Unix socket path that is not there
]);

/** Messages of `pg` and `pg-pool` for lost, refused or timed-out connections (they carry no code). */
const CONNECTION_MESSAGES = [
  "Connection terminated",
  "connection timeout",
  "timeout exceeded when trying to connect",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
  "Connection ended",
  "server closed the connection unexpectedly",
  // A statement that got no answer within the adapter's query timeout: the database stopped answering.
  "Query read timeout",
];

const isPgLike = (error: unknown): error is PgLikeError => typeof error === "object" && error !== null;

/** True when `error` means the database is unreachable right now (so a later attempt may succeed). */
export const isConnectionError = (error: unknown): boolean => {
  if (!isPgLike(error)) return false;
  const code = typeof error.code === "string" ? error.code : "";
  // SQLSTATE class 08 (connection exception); 57P01-57P03 (admin or crash shutdown, cannot connect now);
  // 53300 (too many connections).
  if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code) || code === "53300") return true;
  if (SOCKET_CODES.has(code)) return true;
  // Node reports a refused connection to a host with several addresses as an AggregateError.
  if (Array.isArray(error.errors) && error.errors.some(isConnectionError)) return true;
  const message = typeof error.message === "string" ? error.message : "";
  return CONNECTION_MESSAGES.some((part) => message.includes(part));
};

/** True for deadlocks (40P01) and serialization failures (40001). */
export const isTransientConflict = (error: unknown): boolean =>
  isPgLike(error) && (error.code === "40P01" || error.code === "40001");

/** The constraint breach `error` reports, if it is one. */
export const constraintBreachOf = (error: unknown): ConstraintBreach | undefined => {
  if (!isPgLike(error) || (error.code !== "23505" && error.code !== "23503" && error.code !== "23001"))
    return undefined;
  return new ConstraintBreach({
    code: error.code === "23505" ? "23505" : "23503",
    constraint: typeof error.constraint === "string" ? error.constraint : "",
    detail: typeof error.detail === "string" ? error.detail : "",
  });
};

/** A short description of `error` that names no host, user or statement. */
export const reasonOf = (error: unknown): string => {
  if (!isPgLike(error)) return String(error);
  const code = typeof error.code === "string" ? error.code : undefined;
  return code ?? (typeof error.message === "string" ? error.message.slice(0, 200) : "unknown error");
};
