import { type DomainError, Unauthenticated } from "@mcpsm/domain/errors";
import { bearerToken } from "@mcpsm/domain/schemas";
import type { ServerGraph } from "@mcpsm/domain/storage";
import { type Actor, AuditContext, mayReadServerGraph, scopeRefusal } from "@mcpsm/domain/use-cases";
import { Cause, Effect, Exit } from "effect";
import type { Context } from "koa";
import type { Logger } from "pino";
import type { AccessTokenVerifier } from "../auth/access-token-verifier.js";
import type { EffectRunner } from "../operations/tracing.js";
import { consumeTenantBudget } from "../security/http-guards.js";
import type { RateLimiter } from "../security/rate-limit.js";
import { etagOf, ifMatchVersion } from "./entity-tag.js";
import { readJsonBody } from "./json-body.js";
import { httpProblems, problemFor } from "./problem-response.js";
import type { AppServices, Reply, Route } from "./route-table.js";
import { sendProblem } from "./send-problem.js";
import { type SerialisedAnswer, SerialisedAnswers } from "./serialised-answers.js";

export interface OperationDeps {
  /** Runs the use cases (the service's ManagedRuntime, or the tracing runner around it). */
  readonly runtime: EffectRunner<AppServices>;
  readonly verifier: AccessTokenVerifier;
  readonly logger: Logger;
  /** Per-tenant (and per-address) rate limits; none when rate limiting is off. */
  readonly rateLimiter?: RateLimiter | undefined;
  /** The storage's `cachedServerGraph` (none: the store keeps no read cache, answers are built per request). */
  readonly cachedServerGraph?: ((id: string) => ServerGraph | undefined) | undefined;
}

/** The actor behind the request's bearer token, or the error to answer (401, or 503 if keys are unreachable). */
export const authenticate = async (ctx: Context, verifier: AccessTokenVerifier): Promise<Actor | DomainError> => {
  const header = ctx.get("Authorization");
  if (header === "") return new Unauthenticated({ detail: "an Authorization: Bearer access token is required" });
  const token = bearerToken(header);
  return typeof token === "string" ? verifier.verify(token) : token;
};

/** Who is writing, in which request and operation: what the audit event of a write records. */
const auditContextOf = (ctx: Context, actor: Actor, route: Route): typeof AuditContext.Service => ({
  tenant: actor.tenant,
  sub: actor.sub ?? "",
  clientId: actor.clientId ?? "",
  requestId: String(ctx.state.requestId ?? ""),
  operation: route.operation,
});

export const isDomainError = (value: Actor | DomainError): value is DomainError => "_tag" in value;

const writeReply = (ctx: Context, reply: Reply) => {
  if (reply.location !== undefined) ctx.set("Location", reply.location);
  if (reply.version !== undefined) ctx.set("ETag", etagOf(reply.version));
  ctx.status = reply.status;
  if (reply.status !== 204) ctx.body = reply.body;
};

/** Where a read route's answers are kept: on the cached server graph each was built from. */
export interface KeptAnswers {
  readonly answerFromServerGraph: NonNullable<Route["answerFromServerGraph"]>;
  readonly cachedServerGraph: (id: string) => ServerGraph | undefined;
  readonly answers: SerialisedAnswers;
}

/** The kept answers of `route`, when its answer is built from one server graph and the store caches graphs. */
export const keptAnswersOf = (route: Route, deps: OperationDeps): KeptAnswers | undefined => {
  const { answerFromServerGraph } = route;
  const { cachedServerGraph } = deps;
  return answerFromServerGraph === undefined || cachedServerGraph === undefined
    ? undefined
    : { answerFromServerGraph, cachedServerGraph, answers: new SerialisedAnswers() };
};

/**
 * A read answered from a cached server graph: the graph the request names (when cached) and the answer built
 * from that very graph, when one was kept and the caller may read the graph.
 */
export const keptAnswerFor = (kept: KeptAnswers | undefined, actor: Actor, params: Record<string, string>) => {
  const graphId = kept?.answerFromServerGraph(params);
  const graph = graphId === undefined ? undefined : kept?.cachedServerGraph(graphId);
  // Only a caller the domain lets read the graph gets its kept answer; anyone else runs the use case (404).
  const answer = graph !== undefined && mayReadServerGraph(actor, graph) ? kept?.answers.lookup(graph) : undefined;
  return { graphId, graph, answer };
};

/** Writes a kept answer: the bytes and headers `writeReply` and Koa's JSON serialisation would have sent. */
export const writeSerialised = (ctx: Context, answer: SerialisedAnswer) => {
  // On the Node response directly: what ctx.set and `ctx.type = "application/json"` set, without Koa's
  // per-header arrays and type lookup (headers are not sent yet here).
  if (answer.etag !== undefined) ctx.res.setHeader("ETag", answer.etag);
  ctx.status = 200;
  ctx.res.setHeader("Content-Type", JSON_TYPE);
  ctx.body = answer.body;
};

/** The Content-Type Koa gives `ctx.type = "application/json"` (mime-types adds the charset). */
export const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Runs one management operation in the order of checks of docs/api-rules.md §3: authentication (401) → the tenant's rate
 * limit (429) → scope (403) → body and validation (400/413/415) → the use case (404, 409, ...). Defects
 * become a 500 without details. The scope check is the domain's own (`scopeRefusal`, the check of the
 * `authorize` the use case runs again): it comes here too because a token without the scope must get its
 * 403 before the body is read.
 */
export const operationMiddleware = (route: Route, deps: OperationDeps, kept = keptAnswersOf(route, deps)) => {
  return async (ctx: Context) => {
    const actor = await authenticate(ctx, deps.verifier);
    if (isDomainError(actor)) return sendProblem(ctx, problemFor(actor));
    if (deps.rateLimiter !== undefined && !(await consumeTenantBudget(ctx, deps.rateLimiter, actor.tenant))) return;
    const refusal = scopeRefusal(actor, route.operation);
    if (refusal !== undefined) return sendProblem(ctx, problemFor(refusal));
    ctx.state.tenant = actor.tenant;
    const { graphId, graph, answer } = keptAnswerFor(kept, actor, ctx.params as Record<string, string>);
    if (answer !== undefined) return writeSerialised(ctx, answer);
    let body: unknown;
    if (route.method === "POST" || route.method === "PATCH") {
      const read = await readJsonBody(ctx, {
        maxBytes: route.maxBodyBytes,
        maxDepth: route.maxBodyDepth,
        unparsedDocument: route.unparsedDocument,
      });
      if (!read.ok) return sendProblem(ctx, read.problem);
      body = read.value;
    }
    const exit = await deps.runtime.runPromiseExit(
      route
        .handle({
          actor,
          params: ctx.params as Record<string, string>,
          body,
          query: ctx.query,
          ifMatch: ifMatchVersion(ctx.get("If-Match") || undefined),
        })
        .pipe(Effect.provideService(AuditContext, auditContextOf(ctx, actor, route))),
    );
    if (Exit.isSuccess(exit)) {
      // The same graph object before and after the use case ran means the use case read that graph (the read
      // cache never gives an entry's object back once it dropped it): its answer may be kept on it.
      if (
        kept !== undefined &&
        graph !== undefined &&
        graphId !== undefined &&
        exit.value.status === 200 &&
        kept.cachedServerGraph(graphId) === graph
      )
        return writeSerialised(ctx, kept.answers.keep(graph, exit.value));
      return writeReply(ctx, exit.value);
    }
    const failure = Cause.failureOption(exit.cause);
    if (failure._tag === "Some") {
      if (failure.value._tag === "ConfigurationFault")
        deps.logger.error({ requestId: ctx.state.requestId, detail: failure.value.detail }, "configuration fault");
      // For the refusal counters (operations/metrics.ts).
      if (failure.value._tag === "ResourceExhausted") ctx.state.refusal = { kind: "quota", label: route.operation };
      return sendProblem(ctx, problemFor(failure.value));
    }
    deps.logger.error(
      { requestId: ctx.state.requestId, cause: Cause.pretty(exit.cause) },
      "operation failed unexpectedly",
    );
    return sendProblem(ctx, httpProblems.internal());
  };
};
