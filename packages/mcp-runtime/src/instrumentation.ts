import { ProtocolError } from "@modelcontextprotocol/server";
import { Either } from "effect";
import type { UpstreamOutcome } from "@mcpsm/upstream-http";

// What the runtime tells an observer (metrics, traces): each MCP operation it answers and each upstream HTTP
// exchange made for it. The runtime knows nothing of Prometheus or OpenTelemetry; the service plugs them in.

/** One MCP request the server answers. */
export interface McpOperation {
  /** The JSON-RPC method (`tools/call`, `resources/read`, ...). */
  readonly method: string;
  /** The tool called (tools/call of a tool the server has); undefined otherwise, so labels stay bounded. */
  readonly toolName?: string | undefined;
  /** The server answering (its id: written by the service, never by a tenant). */
  readonly serverId?: string | undefined;
}

/** How an MCP operation ended: undefined on success, else a bounded error type. */
export type McpErrorType = string | undefined;

/** One upstream HTTP exchange about to be made. */
export interface UpstreamExchange {
  readonly method: string;
  readonly url: URL;
}

/** Observes one upstream exchange of an operation: `run` performs it with extra headers (e.g. `traceparent`). */
export type UpstreamObserver = (
  exchange: UpstreamExchange,
  run: (extraHeaders: ReadonlyArray<readonly [string, string]>) => Promise<UpstreamOutcome>,
) => Promise<UpstreamOutcome>;

/** Why a 2xx answer did not fit a tool's lenient outputSchema (docs/api-rules.md §15a): a bounded label. */
export type OutputMismatch = "schema" | "not_json";

export interface McpInstrumentation {
  /**
   * Observes one MCP operation: `run` performs it, observing its upstream exchanges with the observer it is
   * given (so they belong to this operation however the work is scheduled); `errorTypeOf` tells how a result
   * ended (a tool error); a throw is the operation's error. Returns what `run` returns, or rethrows.
   */
  readonly operation: <T>(
    operation: McpOperation,
    run: (upstream: UpstreamObserver) => Promise<T>,
    errorTypeOf: (result: T) => McpErrorType,
  ) => Promise<T>;
  /** A tool's 2xx answer did not fit its lenient outputSchema and was returned as a success anyway. */
  readonly outputMismatch?: ((reason: OutputMismatch) => void) | undefined;
  /** A 2xx answer's o200k_base tokens before and after shaping (docs/api-rules.md §19). */
  readonly resultTokens?: ((before: number, after: number) => void) | undefined;
  /** A tool's response filter failed or ran past its budget. */
  readonly filterFailure?: ((reason: FilterFailure) => void) | undefined;
  /** A caller was asked to enter its own value of a per-caller variable (docs/api-rules.md §23). */
  readonly callerValuePrompt?: (() => void) | undefined;
  /** A tool call asked a person's approval (a new one, not a retry of one still waiting; docs/api-rules.md §20). */
  readonly approvalRequested?: (() => void) | undefined;
}

/** Why a response filter gave no value: a bounded label. */
export type FilterFailure = "failed" | "over-budget";

const unobserved: UpstreamObserver = (_exchange, run) => run([]);

/** Observes nothing. */
export const NO_INSTRUMENTATION: McpInstrumentation = { operation: (_operation, run) => run(unobserved) };

/** The bounded error type of an operation that threw: its JSON-RPC error code, else `_OTHER`. */
export const errorTypeOfThrown = (error: unknown): string =>
  error instanceof ProtocolError ? String(error.code) : "_OTHER";

/** The bounded error type of an upstream exchange: its failure kind, a 5xx status, else undefined. */
export const errorTypeOfUpstream = (outcome: UpstreamOutcome): string | undefined =>
  Either.isLeft(outcome) ? outcome.left.kind : outcome.right.status >= 500 ? String(outcome.right.status) : undefined;

/** The extra headers of two observers: most observers add none, and then no array is copied per exchange. */
const joined = (
  outer: ReadonlyArray<readonly [string, string]>,
  inner: ReadonlyArray<readonly [string, string]>,
): ReadonlyArray<readonly [string, string]> =>
  inner.length === 0 ? outer : outer.length === 0 ? inner : [...outer, ...inner];

/** Both observers, `outer` around `inner` (e.g. metrics around traces); the extra upstream headers of both. */
export const combineInstrumentation = (outer: McpInstrumentation, inner: McpInstrumentation): McpInstrumentation => ({
  outputMismatch: (reason) => {
    outer.outputMismatch?.(reason);
    inner.outputMismatch?.(reason);
  },
  resultTokens: (before, after) => {
    outer.resultTokens?.(before, after);
    inner.resultTokens?.(before, after);
  },
  filterFailure: (reason) => {
    outer.filterFailure?.(reason);
    inner.filterFailure?.(reason);
  },
  callerValuePrompt: () => {
    outer.callerValuePrompt?.();
    inner.callerValuePrompt?.();
  },
  approvalRequested: () => {
    outer.approvalRequested?.();
    inner.approvalRequested?.();
  },
  operation: (operation, run, errorTypeOf) =>
    outer.operation(
      operation,
      (outerUpstream) =>
        inner.operation(
          operation,
          (innerUpstream) =>
            run((exchange, call) =>
              outerUpstream(exchange, (outerHeaders) =>
                innerUpstream(exchange, (innerHeaders) => call(joined(outerHeaders, innerHeaders))),
              ),
            ),
          errorTypeOf,
        ),
      errorTypeOf,
    ),
});
