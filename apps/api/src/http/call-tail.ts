import { PassThrough } from "node:stream";
import * as W from "@mcpsm/domain/schemas";
import type { CallCursor } from "@mcpsm/domain/storage";
import { scopeRefusal, tailServerCalls } from "@mcpsm/domain/use-cases";
import { Cause, Effect, Exit } from "effect";
import type { Context } from "koa";
import { consumeTenantBudget } from "../security/http-guards.js";
import { authenticate, isDomainError, type OperationDeps } from "./operation-middleware.js";
import { httpProblems, problemFor } from "./problem-response.js";
import { sendProblem } from "./send-problem.js";

// The live tail of a server's tool calls (docs/api-rules.md §24): `GET /servers/{id}/calls/stream`, Server-Sent
// Events. The same checks as `GET /servers/{id}/calls` (401, 429, 403 without server:read, 404 for a server
// not the tenant's), then an event per call as the store has it: the tail reads the store every `pollMs`, so
// it sees the calls of every instance (once the writers have stored them, about a second after the call).
// Each event's id is its place in the log; a client that reconnects with Last-Event-ID resumes after it.

/** A keep-alive comment this often, so proxies keep an idle tail open. */
const KEEP_ALIVE_MS = 15_000;

const eventIdOf = (cursor: CallCursor) => `${cursor.at.getTime()}.${cursor.id}`;

/** The cursor a Last-Event-ID names; none when it is absent or not one of ours. */
const cursorOf = (lastEventId: string): CallCursor | undefined => {
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/.exec(lastEventId);
  return match === null ? undefined : { at: new Date(Number(match[1])), id: match[2] as string };
};

/** The handler of `GET /servers/{id}/calls/stream`. */
export const callTail =
  (deps: OperationDeps, pollMs = 1_000) =>
  async (ctx: Context) => {
    const actor = await authenticate(ctx, deps.verifier);
    if (isDomainError(actor)) return sendProblem(ctx, problemFor(actor));
    if (deps.rateLimiter !== undefined && !(await consumeTenantBudget(ctx, deps.rateLimiter, actor.tenant))) return;
    const refusal = scopeRefusal(actor, "listServerCalls");
    if (refusal !== undefined) return sendProblem(ctx, problemFor(refusal));
    ctx.state.tenant = actor.tenant;
    const serverId = String(ctx.params.id ?? "");
    let cursor: CallCursor = cursorOf(ctx.get("Last-Event-ID")) ?? { at: new Date(Date.now()), id: "" };
    const step = () =>
      deps.runtime.runPromiseExit(
        Effect.zipRight(W.decodePathId("id", serverId), tailServerCalls(actor, { serverId, after: cursor })),
      );
    // The first step answers the request's errors (400, 404, 503) before the stream starts.
    const first = await step();
    if (Exit.isFailure(first)) {
      const failure = Cause.failureOption(first.cause);
      return sendProblem(ctx, failure._tag === "Some" ? problemFor(failure.value) : httpProblems.internal());
    }
    const stream = new PassThrough();
    ctx.req.socket.setTimeout(0);
    ctx.status = 200;
    ctx.set({ "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no" });
    ctx.body = stream;
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    let lastWrite = Date.now();
    const send = (calls: ReadonlyArray<{ readonly record: unknown; readonly cursor: CallCursor }>) => {
      for (const { record, cursor: at } of calls) {
        stream.write(`id: ${eventIdOf(at)}\nevent: call\ndata: ${JSON.stringify(record)}\n\n`);
        cursor = at;
        lastWrite = Date.now();
      }
      if (Date.now() - lastWrite >= KEEP_ALIVE_MS) {
        stream.write(": keep-alive\n\n");
        lastWrite = Date.now();
      }
    };
    const stop = () => {
      closed = true;
      clearTimeout(timer);
      stream.end();
    };
    const poll = async () => {
      if (closed) return;
      const next = await step();
      if (closed) return;
      // The server went away (deleted) or the store is down: the stream ends; the client may reconnect.
      if (Exit.isFailure(next)) return stop();
      send(next.value);
      timer = setTimeout(poll, pollMs);
    };
    ctx.req.once("close", stop);
    stream.write(": tail of tool calls\n\n");
    send(first.value);
    timer = setTimeout(poll, pollMs);
  };
