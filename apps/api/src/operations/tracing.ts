import { AsyncLocalStorage } from "node:async_hooks";
import {
  errorTypeOfThrown,
  errorTypeOfUpstream,
  type McpInstrumentation,
  type UpstreamObserver,
} from "@mcpsm/mcp-runtime";
import {
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { currentStatementObserver, type StatementObserver } from "@mcpsm/storage-postgres";
import { Effect, Either, type Exit } from "effect";
import type { Middleware } from "koa";
import { methodLabel, routeTemplateOf } from "./metrics.js";
import { describeStatement } from "./sql-statement.js";

// OpenTelemetry traces (docs/api-rules.md §18), exported by OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set:
// a span per HTTP request (continuing the caller's W3C trace context), per MCP operation, per upstream
// call (whose `traceparent` goes upstream) and per SQL statement. The provider is the service's own, not a
// process-global one, and the current span travels in an AsyncLocalStorage of its own, so several services
// share a process. Span attributes are the semantic conventions' names with values that hold no secret:
// methods, route templates, status codes, tool names, upstream host and path, statement texts (with `$n`
// placeholders, never parameter values), never headers, queries or bodies.
//
// Effect's scheduler does not carry an AsyncLocalStorage value into the fibers it runs, so the span that
// parents a statement cannot be looked up when the statement is sent. It is captured where an effect is
// handed to the runtime (`runner`: the HTTP request's span, or the MCP operation's) and travels in a fiber
// ref (the storage's `currentStatementObserver`), which effect's fibers inherit.

/** Runs effects (the service's ManagedRuntime, or `runner` around it). */
export interface EffectRunner<R> {
  readonly runPromiseExit: <A, E>(effect: Effect.Effect<A, E, R>) => Promise<Exit.Exit<A, E>>;
  readonly runPromise: <A, E>(effect: Effect.Effect<A, E, R>) => Promise<A>;
}

/** Where spans go: the OTLP/HTTP traces URL (the other standard OTEL_* variables apply as the SDK reads them). */
export interface TracingOptions {
  readonly tracesUrl: string;
  readonly serviceName?: string | undefined;
}

export const createTracing = (options: TracingOptions) => {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName ?? "mcp-server-manager" }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: options.tracesUrl }) })],
  });
  const tracer = provider.getTracer("@mcpsm/api");
  const propagator = new W3CTraceContextPropagator();
  const current = new AsyncLocalStorage<Context>();
  const active = () => current.getStore() ?? ROOT_CONTEXT;

  const ended = (span: Span, error?: string) => {
    if (error !== undefined) {
      span.setAttribute("error.type", error);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };

  /** A server span per request, child of the caller's `traceparent` when it sent one. */
  const httpMiddleware: Middleware = async (ctx, next) => {
    const parent = propagator.extract(ROOT_CONTEXT, ctx.headers, defaultTextMapGetter);
    const method = methodLabel(ctx.method);
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { "http.request.method": method } },
      parent,
    );
    let failed = false;
    try {
      await current.run(trace.setSpan(parent, span), next);
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      const route = (ctx.state.routeTemplate as string | undefined) ?? routeTemplateOf(ctx._matchedRoute);
      const status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
      if (route !== "") {
        span.updateName(`${method} ${route}`);
        span.setAttribute("http.route", route);
      }
      span.setAttribute("http.response.status_code", status);
      ended(span, failed ? "_OTHER" : status >= 500 ? String(status) : undefined);
    }
  };

  /** A client span per upstream exchange, child of `parent` (its operation), whose traceparent goes upstream. */
  const upstreamUnder =
    (parent: Context): UpstreamObserver =>
    async (exchange, run) => {
      const method = methodLabel(exchange.method);
      const span = tracer.startSpan(
        method,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            "http.request.method": method,
            "server.address": exchange.url.hostname,
            "server.port": Number(exchange.url.port || (exchange.url.protocol === "https:" ? 443 : 80)),
            // Origin and path only: a query may carry what a tool's caller considers private.
            "url.full": `${exchange.url.origin}${exchange.url.pathname}`,
          },
        },
        parent,
      );
      const carrier: Record<string, string> = {};
      propagator.inject(trace.setSpan(parent, span), carrier, defaultTextMapSetter);
      const outcome = await run(Object.entries(carrier));
      if (Either.isRight(outcome)) span.setAttribute("http.response.status_code", outcome.right.status);
      ended(span, errorTypeOfUpstream(outcome));
      return outcome;
    };

  /** A client span per SQL statement, child of `parent` (semantic conventions for database client spans). */
  const statementsUnder =
    (parent: Context): StatementObserver =>
    (statement) => {
      const described = describeStatement(statement.text);
      const span = tracer.startSpan(
        described.summary,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            "db.system.name": "postgresql",
            "db.namespace": statement.database,
            ...(described.operation === undefined ? {} : { "db.operation.name": described.operation }),
            ...(described.collection === undefined ? {} : { "db.collection.name": described.collection }),
            // The text as sent: `$n` placeholders, so no parameter value (and no secret) is in it.
            "db.query.text": statement.text,
            "server.address": statement.host,
            "server.port": statement.port,
          },
        },
        parent,
      );
      return (error) => {
        // The SQLSTATE only: a driver's message may quote the values of a row.
        const code = (error as { code?: unknown } | undefined)?.code;
        if (error !== undefined && typeof code === "string" && /^[0-9A-Z]{5}$/.test(code))
          span.setAttribute("db.response.status_code", code);
        ended(span, error === undefined ? undefined : typeof code === "string" ? code : "_OTHER");
      };
    };

  /** Effects run by `runner` send their statements as children of the span current when they are handed over. */
  const runner = <R>(runtime: EffectRunner<R>): EffectRunner<R> => {
    const underCurrentSpan = <A, E>(effect: Effect.Effect<A, E, R>) =>
      Effect.locally(effect, currentStatementObserver, statementsUnder(active()));
    return {
      runPromiseExit: (effect) => runtime.runPromiseExit(underCurrentSpan(effect)),
      runPromise: (effect) => runtime.runPromise(underCurrentSpan(effect)),
    };
  };

  // The operation's span is the parent of its upstream spans explicitly: the work in between runs on
  // effect's scheduler, where an AsyncLocalStorage value is not reliably the operation's.
  const mcpInstrumentation: McpInstrumentation = {
    operation: async (operation, run, errorTypeOf) => {
      const parent = active();
      const span = tracer.startSpan(
        operation.toolName === undefined ? operation.method : `${operation.method} ${operation.toolName}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            "mcp.method.name": operation.method,
            ...(operation.toolName === undefined
              ? {}
              : { "gen_ai.tool.name": operation.toolName, "gen_ai.operation.name": "execute_tool" }),
          },
        },
        parent,
      );
      const context = trace.setSpan(parent, span);
      try {
        const result = await current.run(context, () => run(upstreamUnder(context)));
        ended(span, errorTypeOf(result));
        return result;
      } catch (error) {
        ended(span, errorTypeOfThrown(error));
        throw error;
      }
    },
  };

  return {
    httpMiddleware,
    mcpInstrumentation,
    runner,
    /** Exports the spans still buffered, then stops. */
    close: () => provider.shutdown(),
  };
};
export type ServiceTracing = ReturnType<typeof createTracing>;
