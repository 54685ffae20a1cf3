import {
  errorTypeOfThrown,
  errorTypeOfUpstream,
  type McpInstrumentation,
  type UpstreamObserver,
} from "@mcpsm/mcp-runtime";
import { Either } from "effect";
import type { Middleware } from "koa";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

// The service's Prometheus metrics (docs/api-rules.md §18). Names and labels are the OpenTelemetry semantic
// conventions as Prometheus spells them (dots → underscores, unit suffix): http.server.request.duration,
// mcp.server.operation.duration (with mcp.method.name, gen_ai.tool.name, error.type) and
// http.client.request.duration. Every label value is bounded: route templates (never raw paths), the
// standard methods, status codes, the MCP methods the runtime answers, names of tools a server has, hosts
// of stored providers and resources. One registry per service, so several services share a process.

/** OpenTelemetry's recommended buckets for HTTP durations (seconds). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** The MCP semantic conventions' buckets for operation durations (seconds): tools may run long. */
const MCP_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"]);
/** A request method as a label: the standard ones, anything else `_OTHER` (semantic conventions). */
export const methodLabel = (method: string): string => (METHODS.has(method) ? method : "_OTHER");

const seconds = (startMs: number) => (performance.now() - startMs) / 1000;

/** The metrics of one service and the registry that exposes them. */
export const createServiceMetrics = () => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpServerDuration = new Histogram({
    name: "http_server_request_duration_seconds",
    help: "Duration of HTTP server requests.",
    labelNames: ["http_route", "http_request_method", "http_response_status_code"] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  const mcpOperationDuration = new Histogram({
    name: "mcp_server_operation_duration_seconds",
    help: "Duration of MCP requests answered by the server's MCP endpoints.",
    labelNames: ["mcp_method_name", "gen_ai_tool_name", "error_type"] as const,
    buckets: MCP_BUCKETS,
    registers: [registry],
  });
  const httpClientDuration = new Histogram({
    name: "http_client_request_duration_seconds",
    help: "Duration of upstream HTTP requests (tool calls and resource reads).",
    labelNames: ["server_address", "http_request_method", "http_response_status_code", "error_type"] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  const rateLimitRefusals = new Counter({
    name: "mcpsm_rate_limit_refusals_total",
    help: "Requests refused with 429 by a rate limit, by the limit (address or tenant).",
    labelNames: ["limit"] as const,
    registers: [registry],
  });
  const quotaRefusals = new Counter({
    name: "mcpsm_quota_refusals_total",
    help: "Writes refused with 429 by a per-tenant or per-parent quota, by operation.",
    labelNames: ["operation"] as const,
    registers: [registry],
  });
  const oauthTokenRequests = new Counter({
    name: "mcpsm_oauth_token_requests_total",
    help: "Token requests made to upstream OAuth 2.0 authorization servers, by grant type and outcome.",
    labelNames: ["grant_type", "outcome"] as const,
    registers: [registry],
  });
  const gitPushes = new Counter({
    name: "mcpsm_git_pushes_total",
    help: "Pushes of server exports to git connections, by outcome.",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });

  /** Times every HTTP request (outermost middleware) and counts 429 refusals by their cause. */
  const httpMiddleware: Middleware = async (ctx, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      const status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
      httpServerDuration.observe(
        {
          http_route: (ctx.state.routeTemplate as string | undefined) ?? routeTemplateOf(ctx._matchedRoute),
          http_request_method: methodLabel(ctx.method),
          http_response_status_code: String(status),
        },
        seconds(start),
      );
      const refusal = ctx.state.refusal as { kind: "rate_limit" | "quota"; label: string } | undefined;
      if (refusal?.kind === "rate_limit") rateLimitRefusals.inc({ limit: refusal.label });
      else if (refusal?.kind === "quota") quotaRefusals.inc({ operation: refusal.label });
    }
  };

  /** Times an upstream exchange. */
  const upstream: UpstreamObserver = async (exchange, run) => {
    const start = performance.now();
    const outcome = await run([]);
    httpClientDuration.observe(
      {
        server_address: exchange.url.hostname,
        http_request_method: methodLabel(exchange.method),
        http_response_status_code: Either.isRight(outcome) ? String(outcome.right.status) : "",
        error_type: errorTypeOfUpstream(outcome) ?? "",
      },
      seconds(start),
    );
    return outcome;
  };

  // docs/api-rules.md §15a: 2xx answers returned as successes though they do not fit the lenient
  // outputSchema. The one label is bounded and written by the service, never by a tenant.
  const outputMismatches = new Counter({
    name: "mcpsm_tool_output_mismatches_total",
    help: "Tool answers (2xx) that did not fit the tool's lenient outputSchema and were returned as successes, by reason (schema, not_json).",
    labelNames: ["reason"] as const,
    registers: [registry],
  });

  // docs/api-rules.md §23: forms shown to callers for their own values, and values stored. No label: a
  // variable's or tenant's name is written by a tenant, so none goes into a label.
  const callerValuePrompts = new Counter({
    name: "mcpsm_caller_value_prompts_total",
    help: "Tool calls answered with a link to the form where the caller enters its own value of a per-caller variable.",
    registers: [registry],
  });
  const callerValuesStored = new Counter({
    name: "mcpsm_caller_values_stored_total",
    help: "Per-caller variable values stored through the service's form.",
    registers: [registry],
  });

  /** Times MCP operations and their upstream exchanges. */
  const mcpInstrumentation: McpInstrumentation = {
    outputMismatch: (reason) => outputMismatches.inc({ reason }),
    callerValuePrompt: () => callerValuePrompts.inc(),
    operation: async (operation, run, errorTypeOf) => {
      const start = performance.now();
      let errorType: string | undefined;
      try {
        const result = await run(upstream);
        errorType = errorTypeOf(result);
        return result;
      } catch (error) {
        errorType = errorTypeOfThrown(error);
        throw error;
      } finally {
        mcpOperationDuration.observe(
          {
            mcp_method_name: operation.method,
            gen_ai_tool_name: operation.toolName ?? "",
            error_type: errorType ?? "",
          },
          seconds(start),
        );
      }
    },
  };

  return {
    registry,
    httpMiddleware,
    mcpInstrumentation,
    counters: {
      rateLimitRefusals,
      quotaRefusals,
      oauthTokenRequests,
      gitPushes,
      outputMismatches,
      callerValuePrompts,
      callerValuesStored,
    },
  };
};
export type ServiceMetrics = ReturnType<typeof createServiceMetrics>;

/** `/servers/:id/tools/:toolID` (the router's syntax) → `/servers/{id}/tools/{toolID}`; "" when unmatched. */
export const routeTemplateOf = (matched: unknown): string =>
  typeof matched === "string" ? matched.replace(/:([A-Za-z0-9_]+)/g, "{$1}") : "";
