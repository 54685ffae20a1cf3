import { type DomainError, ResourceExhausted } from "@mcpsm/domain/errors";
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from "@modelcontextprotocol/server";
import { Cause, Data, Option } from "effect";
import type { UpstreamFailure } from "@mcpsm/upstream-http";

// The one place where a failure at the MCP edge becomes an answer and, when an operator must hear of it, a log
// line. Everything below it speaks the domain's tagged errors (plus the two the transport adds: no credential,
// an upstream exchange without a response); everything that is not one of them is a defect.
//
// - An outage (Unavailable) is HTTP 503 with Retry-After, or in an exchange the JSON-RPC error -32000 with
//   `data.retryAfterSeconds`; logged as a warning.
// - A configuration fault (a stored secret under a key the service was not given) is HTTP 500, or JSON-RPC
//   -32603, saying so; logged as an error, since nothing gets better until an operator acts.
// - A defect (a bug: anything thrown or died) is HTTP 500, or JSON-RPC -32603, "internal error" without
//   details; logged as an error with its cause. Never disguised as an outage.
// - A caller's own mistake answers as such (401 challenge, 404, invalid params, a tool error result), unlogged.

/** Where the edge writes its log lines; a pino logger fits. */
export interface McpLogger {
  readonly warn: (fields: object, message: string) => void;
  readonly error: (fields: object, message: string) => void;
}

/** Log lines on stderr, for embedders that pass no logger: a defect is never silent. */
export const consoleLogger: McpLogger = {
  warn: (fields, message) => console.warn(message, fields),
  error: (fields, message) => console.error(message, fields),
};

/** The request carried no credential at all (RFC 6750 §3.1: its challenge names no error). */
export class NoCredential extends Data.TaggedError("NoCredential")<Record<never, never>> {}

/** Everything the edge answers besides success: the domain's errors and the transport's own. */
export type McpFailure = DomainError | NoCredential | UpstreamFailure;

/** Seconds a client should wait before retrying after an outage. */
export const RETRY_AFTER_SECONDS = 1;

/** JSON-RPC server-error codes (the implementation-defined range -32000..-32099). */
export const RPC_UNAVAILABLE = -32000;
export const RPC_NOT_FOUND = -32001;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

/** An HTTP answer carrying a JSON-RPC error (the request's id is unknown here, so null). */
const rpcResponse = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  json(status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);

const quoted = (text: string) => `"${text.replace(/["\\]/g, "")}"`;

/** The RFC 6750 / RFC 9728 challenge: where to find the server's protected resource metadata, and why not. */
const challenge = (metadataUrl: string, reason?: string) =>
  json(
    401,
    reason === undefined
      ? {
          error: "unauthorized",
          error_description: "a bearer token is required: a server token or an OAuth access token for this server",
        }
      : { error: "invalid_token", error_description: reason },
    {
      "WWW-Authenticate": `Bearer resource_metadata=${quoted(metadataUrl)}${
        reason === undefined ? "" : `, error="invalid_token", error_description=${quoted(reason)}`
      }`,
    },
  );

const notFoundMessage = (error: { readonly kind: string; readonly id: string }) =>
  error.kind === "server" ? `MCP server '${error.id}' does not exist` : `no ${error.kind} '${error.id}'`;

/** What an HTTP-level answer needs to know about the request. */
export interface HttpFailureContext {
  readonly log: McpLogger;
  /** The protected resource metadata URL of the server addressed, for 401 challenges. */
  readonly metadataUrl: string;
  /** The request path, for log lines. */
  readonly path: string;
}

const logDefect = (log: McpLogger, cause: Cause.Cause<unknown>, fields: object) =>
  log.error({ ...fields, cause: Cause.pretty(cause) }, "mcp request failed with a defect");

const logOutage = (log: McpLogger, detail: string, fields: object) =>
  log.warn({ ...fields, detail }, "mcp request answered 503: a dependency is unavailable");

const logConfigurationFault = (log: McpLogger, detail: string, fields: object) =>
  log.error(
    { ...fields, detail, fault: "configuration" },
    "CONFIGURATION FAULT: the service cannot serve this request",
  );

/** The HTTP answer (JSON-RPC error body, or an OAuth challenge) for a failure before the MCP exchange starts. */
export const httpFailure = (cause: Cause.Cause<McpFailure>, context: HttpFailureContext): Response => {
  const failure = Cause.failureOption(cause);
  const fields = { path: context.path };
  if (Option.isNone(failure)) {
    logDefect(context.log, cause, fields);
    return rpcResponse(500, ProtocolErrorCode.InternalError, "internal error");
  }
  const error = failure.value;
  switch (error._tag) {
    case "NoCredential":
      return challenge(context.metadataUrl);
    case "Unauthenticated":
      return challenge(context.metadataUrl, error.detail);
    case "NotFound":
      return rpcResponse(404, RPC_NOT_FOUND, notFoundMessage(error));
    case "PermissionDenied":
      return rpcResponse(403, ProtocolErrorCode.InvalidRequest, error.detail);
    case "InvalidArgument":
      return rpcResponse(400, ProtocolErrorCode.InvalidRequest, error.detail);
    case "ResourceExhausted":
      return rpcResponse(
        429,
        RPC_UNAVAILABLE,
        error.detail,
        error.retryAfterSeconds === undefined ? {} : { "Retry-After": String(error.retryAfterSeconds) },
      );
    case "Unavailable":
      logOutage(context.log, error.detail, fields);
      return rpcResponse(503, RPC_UNAVAILABLE, `${error.detail}; retry later`, {
        "Retry-After": String(RETRY_AFTER_SECONDS),
      });
    case "ConfigurationFault":
      logConfigurationFault(context.log, error.detail, fields);
      return rpcResponse(500, ProtocolErrorCode.InternalError, `configuration fault: ${error.detail}`);
    default:
      // Write conflicts, preconditions and upstream exchanges cannot happen before the MCP exchange starts.
      logDefect(context.log, Cause.die(error), fields);
      return rpcResponse(500, ProtocolErrorCode.InternalError, "internal error");
  }
};

/**
 * The answer to an MCP request refused by a rate limit applied in front of the runtime (the service's
 * per-address limit): 429 with Retry-After and a JSON-RPC error body, as MCP clients expect.
 */
export const rateLimitedResponse = (detail: string, retryAfterSeconds: number, path: string): Response =>
  httpFailure(Cause.fail(new ResourceExhausted({ detail, retryAfterSeconds })), {
    log: consoleLogger,
    metadataUrl: "",
    path,
  });

/** The JSON-RPC error for a failure inside an MCP exchange; request handlers throw it and the SDK sends it. */
export const rpcFailure = (cause: Cause.Cause<McpFailure>, log: McpLogger, method: string): ProtocolError => {
  const failure = Cause.failureOption(cause);
  const fields = { method };
  if (Option.isNone(failure)) {
    logDefect(log, cause, fields);
    return new ProtocolError(ProtocolErrorCode.InternalError, "internal error");
  }
  const error = failure.value;
  switch (error._tag) {
    case "NotFound":
      return error.kind === "resource"
        ? new ResourceNotFoundError(error.id)
        : new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown ${error.kind} '${error.id}'`);
    case "InvalidArgument":
    case "PermissionDenied":
    case "FailedPrecondition":
      return new ProtocolError(ProtocolErrorCode.InvalidParams, error.detail);
    case "UpstreamFailure":
      return new ProtocolError(ProtocolErrorCode.InternalError, error.message);
    case "Unavailable":
      logOutage(log, error.detail, fields);
      return new ProtocolError(RPC_UNAVAILABLE, `${error.detail}; retry later`, {
        retryAfterSeconds: RETRY_AFTER_SECONDS,
      });
    case "ConfigurationFault":
      logConfigurationFault(log, error.detail, fields);
      return new ProtocolError(ProtocolErrorCode.InternalError, `configuration fault: ${error.detail}`);
    default:
      logDefect(log, Cause.die(error), fields);
      return new ProtocolError(ProtocolErrorCode.InternalError, "internal error");
  }
};

const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: "text", text }] });

/**
 * The answer of a `tools/call` that failed: what the model can act on (its arguments, a variable the owner
 * must define, an upstream without an answer) is a tool error result it reads; the rest is a JSON-RPC error.
 */
export const toolFailure = (cause: Cause.Cause<McpFailure>, log: McpLogger): CallToolResult => {
  const failure = Cause.failureOption(cause);
  if (Option.isSome(failure))
    switch (failure.value._tag) {
      case "InvalidArgument":
      case "PermissionDenied":
      case "FailedPrecondition":
        return errorResult(failure.value.detail);
      case "UpstreamFailure":
        return errorResult(`upstream call failed: ${failure.value.message}`);
    }
  throw rpcFailure(cause, log, "tools/call");
};

/** Runs a request handler so that anything it throws that is not already a JSON-RPC error becomes a logged defect. */
export const guarded =
  <A extends Array<unknown>, R>(log: McpLogger, method: string, handler: (...args: A) => R | Promise<R>) =>
  async (...args: A): Promise<R> => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      throw rpcFailure(Cause.die(error), log, method);
    }
  };
