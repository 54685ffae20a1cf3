import { InvalidArgument } from "@mcpsm/domain/errors";
import {
  type McpCaller,
  planUpstreamRequest,
  resolveToolHeaders,
  resolveToolHeadersNow,
  serverScopesOf,
  upstreamHeaders,
  withFixedQuery,
  withPinnedArguments,
} from "@mcpsm/domain/mcp";
import type { ProviderRow, ToolRow } from "@mcpsm/domain/storage";
import { SecretCipher } from "@mcpsm/domain/use-cases";
import {
  callUpstream,
  type UpstreamCall,
  type UpstreamResponse,
  type UpstreamTokenRequest,
} from "@mcpsm/upstream-http";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { Cause, Effect, Either, Exit } from "effect";
import { argumentProblems } from "../argument-validator.js";
import type { CompiledServer, CompiledTool } from "../compiled-server.js";
import { type McpFailure, toolFailure } from "../error-mapping.js";
import type { UpstreamObserver } from "../instrumentation.js";
import { type SentWithToken, sendWithUpstreamToken } from "../upstream-auth/send-with-upstream-token.js";
import { askForCallerValue } from "./caller-value-prompt.js";
import { ConsentRequired } from "./consent.js";
import { encodedBody } from "../request-body/encoded-body.js";
import { checkedAnswer } from "../tool-output/answer-check.js";
import { shapedToolResult } from "../tool-output/shape-answer.js";
import { errorResult } from "./tool-result.js";
import { answerAccepted, type CreateTaskResult, upstreamWatch } from "../long-running/answer-accepted.js";
import { eventStreamAnswer, eventStreamRelay, isEventStream } from "../long-running/event-stream.js";
import type { ProgressReport } from "../long-running/follow-in-call.js";
import type { UpstreamServices } from "./upstream-services.js";

// A tools/call: the arguments checked, the upstream request planned with the domain's rules, sent with the
// caller's upstream OAuth token when the provider needs one, and its answer mapped to a tool result.

/** An upstream exchange, observed (the observer may add headers such as `traceparent`). */
export const observedUpstream = (services: UpstreamServices, observe: UpstreamObserver, call: UpstreamCall) =>
  observe({ method: call.method, url: call.url }, (extra) =>
    callUpstream(
      services.dispatcher,
      extra.length === 0 ? call : { ...call, headers: [...call.headers, ...extra] },
      services.limits,
    ),
  );

/**
 * A failure of a tools/call as the Effect program of the same steps would end with it: thrown by `callTool`,
 * mapped once by `runToolCall` (a tool error result, or the JSON-RPC error it throws).
 */
class CallFailed {
  constructor(readonly cause: Cause.Cause<McpFailure>) {}
}
const failed = (error: McpFailure) => new CallFailed(Cause.fail(error));

/** The awaited value of what an effect would run as `Effect.promise`: a rejection is a defect. */
const exitOf = <A, E extends McpFailure>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isFailure(exit)) throw new CallFailed(exit.cause);
  return exit.value;
};

/**
 * The tool's headers with their variables resolved: without an effect when nothing is read (most tools), else
 * the owner's variables read, or the caller asked for a value of their own (a final answer).
 */
const toolHeadersOf = async (
  services: UpstreamServices,
  compiled: CompiledServer,
  tool: CompiledTool,
  request: ToolCallRequest,
  principal: McpCaller,
): Promise<ReadonlyArray<readonly [string, string]> | CallToolResult | ConsentRequired> => {
  const now = resolveToolHeadersNow(tool.provider.secretPrefix, tool.row.headers, request.known);
  if (now !== undefined) {
    if (Either.isLeft(now)) throw failed(now.left);
    return now.right;
  }
  return exitOf(
    await services.runner.runPromiseExit(
      Effect.catchTag(
        resolveToolHeaders(compiled.tenant, tool.provider.secretPrefix, tool.row.headers, principal, request.known),
        "CallerValueNeeded",
        (needed) => askForCallerValue(services, tool.provider, principal, needed),
      ),
    ),
  );
};

/**
 * A `tools/call`: arguments checked, the request planned, header variables resolved, the upstream called.
 * Plain async steps, not one effect: a call is the service's hottest path, and an effect's fiber, with a
 * suspension for each awaited step, cost more than the steps themselves; the steps that read the store or
 * an upstream token stay effects. A failure is thrown as a CallFailed with the cause the effect would have.
 */
const callTool = async (
  services: UpstreamServices,
  observe: UpstreamObserver,
  compiled: CompiledServer,
  tool: CompiledTool,
  given: unknown,
  request: ToolCallRequest,
  signal: AbortSignal,
  principal: McpCaller,
): Promise<CallToolResult | CreateTaskResult | ConsentRequired> => {
  // Fixed query values (`const` properties) are the service's to send: filled in before the check, as are
  // the values the server pins (docs/api-rules.md §20), over whatever the caller gave for them.
  const args = withFixedQuery(tool.row, withPinnedArguments(tool.fixedArgs, given));
  const problems = argumentProblems(tool.row, args);
  if (problems.length > 0)
    throw failed(
      new InvalidArgument({
        detail: `invalid arguments:\n${problems.map((p) => `- ${p}`).join("\n")}`,
        errors: problems.map((line) => {
          const at = line.indexOf(": ");
          return at < 0
            ? { path: "arguments", message: line }
            : { path: line.slice(0, at), message: line.slice(at + 2) };
        }),
      }),
    );
  const planned = planUpstreamRequest(tool.provider.baseURL, tool.row, (args ?? {}) as Record<string, unknown>);
  if (Either.isLeft(planned)) throw failed(planned.left);
  const plan = planned.right;
  const headers = await toolHeadersOf(services, compiled, tool, request, principal);
  // A final answer (a form for the caller's own value, or a tool error).
  if (!Array.isArray(headers)) return headers as CallToolResult | ConsentRequired;
  const toolHeaders = headers as ReadonlyArray<readonly [string, string]>;
  // Most calls send no body: nothing to encode, nothing awaited.
  const body = plan.body === undefined ? undefined : await encodedBody(plan.body);
  /** One upstream exchange with the tool's headers (and the caller's upstream token): the call, or a status look. */
  const send = (
    method: string,
    url: URL,
    sent: typeof body,
    on: AbortSignal,
    observer: UpstreamObserver,
    bearer: string | undefined,
  ) =>
    observedUpstream(services, observer, {
      method,
      url,
      headers: upstreamHeaders(
        compiled.forwardRequestHeaders,
        request.incoming?.entries(),
        bearer === undefined ? toolHeaders : [...toolHeaders, ["Authorization", `Bearer ${bearer}`]],
        sent,
        services.userAgent,
      ),
      body: sent?.data,
      signal: on,
      onEventStream: request.progress === undefined ? undefined : eventStreamRelay(request.progress),
    });
  /** The same exchange as an effect (for `sendWithUpstreamToken`): an upstream failure fails it. */
  const exchange =
    (method: string, url: URL, sent: typeof body, on: AbortSignal, observer: UpstreamObserver) =>
    (bearer: string | undefined) =>
      Effect.flatten(Effect.promise(() => send(method, url, sent, on, observer, bearer)));
  const token = tokenRequest(services, compiled, tool, principal);
  let sent: SentWithToken;
  if (token === undefined || services.authorization === undefined) {
    // No upstream token to ask for (sendWithUpstreamToken would send once, with no bearer): sent as it is.
    const outcome = await send(plan.method, plan.url, body, signal, observe, undefined);
    if (Either.isLeft(outcome)) throw failed(outcome.left);
    sent = { kind: "response", response: outcome.right };
  } else
    sent = exitOf(
      await services.runner.runPromiseExit(
        sendWithUpstreamToken(services.authorization, token, exchange(plan.method, plan.url, body, signal, observe)),
      ),
    );
  if (sent.kind === "failure") return errorResult(sent.message);
  if (sent.kind === "consent") return new ConsentRequired(sent);
  const finish = async (response: UpstreamResponse) =>
    checkedAnswer(
      tool.row,
      await shapedToolResult(
        tool.row,
        isEventStream(response) ? eventStreamAnswer(response) : response,
        services.limits,
        compiled.maxResultTokens,
        request.tokens === undefined
          ? services.instrumentation
          : shapingObserver(services.instrumentation, request.tokens),
      ),
      services,
    );
  // docs/api-rules.md §22: an accepted long-running operation is followed (a task, or within the call).
  if (sent.response.accepted !== undefined) {
    const watch = upstreamWatch(
      services.runner,
      (url, on) =>
        sendWithUpstreamToken(services.authorization, token, exchange("GET", url, undefined, on, unobserved)),
      finish,
    );
    const followed = await answerAccepted(services.longRunning, request, sent.response, watch, signal);
    if (followed !== undefined) return followed;
  }
  return finish(sent.response);
};

/** Status looks are no operation of the caller's (a task's outlive its call): unobserved. */
const unobserved: UpstreamObserver = (_exchange, run) => run([]);

/** The service's shaping observer that also hands the call log the token counts (counted once, by shaping). */
const shapingObserver = (
  instrumentation: UpstreamServices["instrumentation"],
  tokens: (before: number, after: number) => void,
) => ({
  filterFailure: instrumentation.filterFailure,
  resultTokens: (before: number, after: number) => {
    instrumentation.resultTokens?.(before, after);
    tokens(before, after);
  },
});

/** The token request of a tool whose provider has `oauth2Config`; undefined for the others. */
export const tokenRequest = (
  services: UpstreamServices,
  compiled: CompiledServer,
  tool: { readonly provider: ProviderRow; readonly row?: ToolRow },
  principal: McpCaller,
): UpstreamTokenRequest | undefined => {
  const config = tool.provider.oauth2Config;
  if (config === null || services.authFetch === undefined) return undefined;
  const serverScopes = serverScopesOf(compiled.tools.values(), tool.provider.id);
  const cipherText = config.clientSecretCipher;
  return {
    provider: { ...tool.provider, oauth2Config: config },
    // A resource declares no scopes: a read asks for those of the server's tools of its provider.
    scopes: tool.row?.oauth2Scopes ?? serverScopes,
    clientSecret: async () => {
      if (cipherText === null) return "";
      const exit = await services.runner.runPromiseExit(
        Effect.flatMap(SecretCipher, (cipher) => cipher.decrypt(cipherText)),
      );
      if (Exit.isSuccess(exit)) return exit.value;
      throw Cause.squash(exit.cause);
    },
    caller: principal,
    serverId: compiled.id,
    tenant: compiled.tenant,
    serverScopes,
    fetch: services.authFetch,
  };
};

/** The request a tools/call answers: its headers (when the SDK has them), its id and its abort signal. */
export interface ToolCallRequest {
  readonly incoming: Headers | undefined;
  readonly id: string | number;
  readonly signal: AbortSignal;
  /** The header variables' values already read for this call (the fast lane's `prepareDirectCall`). */
  readonly known?: ReadonlyMap<string, string> | undefined;
  /** Whether the caller takes a task, and its progress reports (docs/api-rules.md §22); none: neither. */
  readonly taskOwner?: string | undefined;
  readonly progress?: ProgressReport | undefined;
  /** Where the call log takes the result's token counts before and after shaping (when it records the call). */
  readonly tokens?: ((before: number, after: number) => void) | undefined;
}

/**
 * A tools/call run as the SDK handler and the fast lane both run it: registered so that the caller's
 * `notifications/cancelled` for the request id aborts the upstream call; a failure the model can act on is a
 * tool error result, any other failure is thrown as its JSON-RPC error.
 */
export const runToolCall = async (
  services: UpstreamServices,
  observe: UpstreamObserver,
  compiled: CompiledServer,
  caller: string,
  principal: McpCaller,
  tool: CompiledTool,
  args: unknown,
  request: ToolCallRequest,
): Promise<CallToolResult | CreateTaskResult | ConsentRequired> => {
  const call = services.inFlight.start(caller, request.id, request.signal);
  try {
    return await callTool(services, observe, compiled, tool, args, request, call.signal, principal);
  } catch (error) {
    // What the effect's exit would have held: its failure, or any other throw as a defect.
    return toolFailure(error instanceof CallFailed ? error.cause : Cause.die(error), services.log);
  } finally {
    call.done();
  }
};
