import { InvalidArgument, NotFound } from "@mcpsm/domain/errors";
import {
  forwardableHeaders,
  holdsVariableReference,
  planUpstreamRequest,
  renderPrompt,
  resolveToolHeaders,
  withFixedQuery,
} from "@mcpsm/domain/mcp";
import type { ToolHeader } from "@mcpsm/domain/schemas";
import type { McpCaller } from "@mcpsm/domain/mcp";
import type { ProviderRow, Storage, ToolRow } from "@mcpsm/domain/storage";
import { SecretCipher } from "@mcpsm/domain/use-cases";
import { randomUUID } from "node:crypto";
import {
  type CallToolResult,
  type GetPromptResult,
  type InputRequiredResult,
  inputRequired,
  type ReadResourceResult,
  Server,
  type ServerContext,
  UrlElicitationRequiredError,
} from "@modelcontextprotocol/server";
import { Cause, Effect, Either, Exit } from "effect";
import type { Dispatcher } from "undici";
import { argumentProblems } from "./argument-validator.js";
import type { McpInstrumentation, UpstreamObserver } from "./instrumentation.js";
import type { InFlightCalls } from "./exchange/in-flight-calls.js";
import type { CompiledResource, CompiledServer, CompiledTool } from "./compiled-server.js";
import { essence, isJsonType, isTextualType } from "./media-type.js";
import { guarded, type McpLogger, rpcFailure, toolFailure } from "./error-mapping.js";
import { discoveryToolCall, discoveryToolList } from "./tool-discovery.js";
import { toolListPage } from "./tool-list-page.js";
import { sendWithUpstreamToken } from "./upstream-auth/send-with-upstream-token.js";
import type {
  PolicyFetch,
  UpstreamAuthorization,
  UpstreamTokenAnswer,
  UpstreamTokenRequest,
} from "./upstream-auth/upstream-authorization.js";
import { type EncodedBody, encodedBody } from "./request-body/encoded-body.js";
import { checkedAnswer } from "./tool-output/answer-check.js";
import {
  callUpstream,
  type UpstreamCall,
  UpstreamFailure,
  type UpstreamLimits,
  type UpstreamResponse,
} from "./upstream-client.js";

// One MCP server instance per HTTP exchange (the SDK's stateless model), built from a compiled server.
// Building it only wires handlers to data compiled earlier; nothing is read from the store here except the
// owner's variables when a tool's headers reference them.

/** Runs domain effects (the service's ManagedRuntime fits). */
export interface EffectRunner {
  readonly runPromiseExit: <A, E>(effect: Effect.Effect<A, E, Storage | SecretCipher>) => Promise<Exit.Exit<A, E>>;
}

export interface UpstreamServices {
  readonly runner: EffectRunner;
  /** Where outages, configuration faults and defects are reported. */
  readonly log: McpLogger;
  readonly dispatcher: Dispatcher;
  readonly limits: UpstreamLimits;
  /** Sent as User-Agent when neither the tool nor a forwarded header sets one. */
  readonly userAgent: string;
  /** Observes operations and upstream exchanges (metrics, traces). */
  readonly instrumentation: McpInstrumentation;
  /** Running calls a client's `notifications/cancelled` may abort. */
  readonly inFlight: InFlightCalls;
  /** Access tokens for providers with `oauth2Config` (docs/api-rules.md §13); none: such tools go without. */
  readonly authorization?: UpstreamAuthorization | undefined;
  /** Outbound HTTP for authorization servers, under the same network policy and limits as upstream calls. */
  readonly authFetch?: PolicyFetch | undefined;
}

/** A consent the caller must give before a tool can run (docs/api-rules.md §13). */
export type ConsentNeeded = Extract<UpstreamTokenAnswer, { kind: "consent" }>;

/** How the caller's client asked to be told about a consent: the protocol era and its URL elicitation support. */
export interface ConsentChannel {
  readonly era: "legacy" | "modern";
  /** True when the client declared URL-mode elicitation; undefined when unknown (a stateless 2025 client). */
  readonly urlElicitation: (ctx: ServerContext) => boolean | undefined;
}

const CONSENT_KEY = "upstream_oauth_consent";

/** What callTool answers instead of a result when the caller must consent first. */
class ConsentRequired {
  constructor(readonly consent: ConsentNeeded) {}
}

/**
 * The answer to a tools/call that needs consent, in the form of the caller's era: 2026-07-28 an
 * input-required result carrying a URL elicitation; 2025-11-25 the JSON-RPC error -32042 with it; a client
 * that declared no URL elicitation (or declined it) an isError result whose text holds the URL.
 */
const consentAnswer = <T = CallToolResult>(
  channel: ConsentChannel,
  ctx: ServerContext,
  consent: ConsentNeeded,
  // A resources/read has no tool result: it answers a JSON-RPC error with the same text instead.
  textAnswer: (text: string) => T = (text) => errorResult(text) as T,
  again = "call the tool again",
): T | InputRequiredResult => {
  const text = () => textAnswer(`${consent.message}\nOpen this URL to connect, then ${again}: ${consent.url}`);
  const declared = channel.urlElicitation(ctx);
  if (channel.era === "modern") {
    // A retry that carries an answer to our elicitation and still lacks the connection: the person declined
    // or did not finish; say so in text rather than asking again in a loop.
    if (declared !== true || ctx.mcpReq.inputResponses?.[CONSENT_KEY] !== undefined) return text();
    return inputRequired({
      inputRequests: { [CONSENT_KEY]: inputRequired.elicitUrl({ message: consent.message, url: consent.url }) },
    });
  }
  if (declared === false) return text();
  throw new UrlElicitationRequiredError(
    [{ mode: "url", message: consent.message, url: consent.url, elicitationId: randomUUID() }],
    `${consent.message}: ${consent.url}`,
  );
};

/** An upstream exchange, observed (the observer may add headers such as `traceparent`). */
const observedUpstream = (services: UpstreamServices, observe: UpstreamObserver, call: UpstreamCall) =>
  observe({ method: call.method, url: call.url }, (extra) =>
    callUpstream(
      services.dispatcher,
      extra.length === 0 ? call : { ...call, headers: [...call.headers, ...extra] },
      services.limits,
    ),
  );

const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: "text", text }] });

/** The upstream body as text: decoded when textual, else base64 with a note. */
const bodyText = (response: UpstreamResponse, limits: UpstreamLimits): string => {
  const text = isTextualType(response.contentType)
    ? response.body.toString("utf8")
    : `[${response.body.length} bytes of ${response.contentType}, base64-encoded]\n${response.body.toString("base64")}`;
  return response.truncated
    ? `${text}\n[truncated: the upstream response is larger than ${limits.maxResponseBytes} bytes]`
    : text;
};

/**
 * A binary upstream body as MCP content: an image or audio block for those media types, else an embedded
 * resource (its URI the upstream URL). A truncated binary would be corrupt, so it is an error instead.
 */
const binaryContent = (response: UpstreamResponse, limits: UpstreamLimits): CallToolResult => {
  if (response.truncated)
    return errorResult(
      `the upstream answered ${response.contentType} larger than ${limits.maxResponseBytes} bytes; binary content is not cut, so nothing is returned`,
    );
  const mimeType = essence(response.contentType);
  const data = response.body.toString("base64");
  if (mimeType.startsWith("image/")) return { content: [{ type: "image", data, mimeType }] };
  if (mimeType.startsWith("audio/")) return { content: [{ type: "audio", data, mimeType }] };
  return { content: [{ type: "resource", resource: { uri: response.url.href, mimeType, blob: data } }] };
};

/**
 * A tool result from an upstream response: text for textual bodies (with `structuredContent` when JSON),
 * image / audio / embedded-resource content for binary ones.
 */
export const toolResultOf = (response: UpstreamResponse, limits: UpstreamLimits): CallToolResult => {
  if (response.status < 200 || response.status > 299) {
    const text = bodyText(response, limits);
    return errorResult(
      `upstream answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}${text !== "" ? `\n${text}` : ""}`,
    );
  }
  if (!isTextualType(response.contentType)) return binaryContent(response, limits);
  const result: CallToolResult = { content: [{ type: "text", text: bodyText(response, limits) }] };
  if (!response.truncated && isJsonType(response.contentType) && response.body.length > 0) {
    try {
      const parsed: unknown = JSON.parse(response.body.toString("utf8"));
      result.structuredContent =
        typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
          ? (parsed as Record<string, unknown>)
          : { result: parsed };
    } catch {
      // Not valid JSON after all: the text content is the answer.
    }
  }
  return result;
};

/** The headers of the upstream request: forwarded ones (if enabled), defaults, then the tool's own. */
const upstreamHeaders = (
  compiled: CompiledServer,
  incoming: Headers | undefined,
  toolHeaders: ReadonlyArray<readonly [string, string]>,
  body: EncodedBody | undefined,
  userAgent: string,
) => {
  const headers = new Map<string, readonly [string, string]>();
  const put = (key: string, value: string) => headers.set(key.toLowerCase(), [key, value]);
  if (compiled.forwardRequestHeaders && incoming !== undefined)
    for (const [key, value] of forwardableHeaders(incoming.entries())) put(key, value);
  // The MCP transport's own media types describe the client's exchange with us, not the upstream one.
  if (compiled.forwardRequestHeaders) headers.delete("accept");
  if (!headers.has("user-agent")) put("User-Agent", userAgent);
  put("Accept", "application/json, */*;q=0.8");
  if (body !== undefined) put("Content-Type", body.contentType);
  else headers.delete("content-type");
  for (const [key, value] of toolHeaders) put(key, value);
  if (body?.fixedType === true) put("Content-Type", body.contentType);
  return [...headers.values()];
};

/** A `tools/call`: arguments checked, the request planned, header variables resolved, the upstream called. */
const callTool = (
  services: UpstreamServices,
  observe: UpstreamObserver,
  compiled: CompiledServer,
  tool: CompiledTool,
  given: unknown,
  incoming: Headers | undefined,
  signal: AbortSignal,
  principal: McpCaller,
) =>
  Effect.gen(function* () {
    const args = withFixedQuery(tool.row, given);
    const problems = argumentProblems(tool.row, args);
    if (problems.length > 0)
      return yield* new InvalidArgument({
        detail: `invalid arguments:\n${problems.map((p) => `- ${p}`).join("\n")}`,
        errors: problems.map((line) => {
          const at = line.indexOf(": ");
          return at < 0
            ? { path: "arguments", message: line }
            : { path: line.slice(0, at), message: line.slice(at + 2) };
        }),
      });
    const plan = yield* planUpstreamRequest(tool.provider.baseURL, tool.row, (args ?? {}) as Record<string, unknown>);
    const toolHeaders = yield* resolveToolHeaders(compiled.tenant, tool.provider.secretPrefix, tool.row.headers);
    const body = yield* Effect.promise(() => encodedBody(plan.body));
    const send = (bearer: string | undefined) =>
      Effect.flatten(
        Effect.promise(() =>
          observedUpstream(services, observe, {
            method: plan.method,
            url: plan.url,
            headers: upstreamHeaders(
              compiled,
              incoming,
              bearer === undefined ? toolHeaders : [...toolHeaders, ["Authorization", `Bearer ${bearer}`]],
              body,
              services.userAgent,
            ),
            body: body?.data,
            signal,
          }),
        ),
      );
    const sent = yield* sendWithUpstreamToken(
      services.authorization,
      tokenRequest(services, compiled, tool, principal),
      send,
    );
    if (sent.kind === "failure") return errorResult(sent.message);
    if (sent.kind === "consent") return new ConsentRequired(sent);
    return checkedAnswer(tool.row, toolResultOf(sent.response, services.limits), services);
  });

/** The token request of a tool whose provider has `oauth2Config`; undefined for the others. */
const tokenRequest = (
  services: UpstreamServices,
  compiled: CompiledServer,
  tool: { readonly provider: ProviderRow; readonly row?: ToolRow },
  principal: McpCaller,
): UpstreamTokenRequest | undefined => {
  const config = tool.provider.oauth2Config;
  if (config === null || services.authFetch === undefined) return undefined;
  const serverScopes = new Set<string>();
  for (const other of compiled.tools.values())
    if (other.provider.id === tool.provider.id) for (const scope of other.row.oauth2Scopes) serverScopes.add(scope);
  const cipherText = config.clientSecretCipher;
  return {
    provider: { ...tool.provider, oauth2Config: config },
    // A resource declares no scopes: a read asks for those of the server's tools of its provider.
    scopes: tool.row?.oauth2Scopes ?? [...serverScopes].sort(),
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
    serverScopes: [...serverScopes].sort(),
    fetch: services.authFetch,
  };
};

/** True when `url` is under the provider's base URL (same origin, within its path). */
const isOnBaseUrl = (url: URL, baseURL: string): boolean => {
  const base = URL.parse(baseURL);
  if (base === null || base.origin !== url.origin) return false;
  const basePath = base.pathname.replace(/\/+$/, "");
  return url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
};

/**
 * The credential headers a resource read sends: per header name, the first candidate whose variables all
 * exist (a tool's header naming a variable the owner never defined is that tool's problem, not the read's).
 */
const resourceCredentials = (tenant: string, secretPrefix: string, candidates: ReadonlyArray<ToolHeader>) =>
  Effect.gen(function* () {
    const sent = new Map<string, readonly [string, string]>();
    for (const header of candidates) {
      if (sent.has(header.key.toLowerCase())) continue;
      const resolved = yield* Effect.either(resolveToolHeaders(tenant, secretPrefix, [header]));
      if (Either.isRight(resolved)) for (const pair of resolved.right) sent.set(pair[0].toLowerCase(), pair);
      else if (resolved.left._tag !== "FailedPrecondition" && resolved.left._tag !== "PermissionDenied")
        return yield* Effect.fail(resolved.left);
    }
    return [...sent.values()];
  });

/**
 * A `resources/read`: one GET of the resource's URL under the same policy and limits as tool calls. When the
 * URL is on its provider's base URL, the provider's credential headers go with it (variables resolved as
 * for tools); never to another address.
 */
const readResource = (
  services: UpstreamServices,
  observe: UpstreamObserver,
  compiled: CompiledServer,
  resource: CompiledResource,
  ctx: ServerContext,
  principal: McpCaller,
) =>
  Effect.gen(function* () {
    const { uri, mimeType } = resource.row;
    const failed = (kind: UpstreamFailure["kind"], why: string) =>
      new UpstreamFailure({ kind, message: `reading '${uri}' failed: ${why}` });
    if (holdsVariableReference(uri))
      return yield* failed("refused", "its URI holds a ${…} reference, which only tool header values resolve");
    const url = URL.parse(uri);
    if (url === null || (url.protocol !== "http:" && url.protocol !== "https:"))
      return yield* failed("refused", "it is not an http(s) URL");
    const provider = resource.provider;
    const onBase = provider !== undefined && isOnBaseUrl(url, provider.baseURL);
    const credentials = onBase
      ? yield* resourceCredentials(compiled.tenant, provider.secretPrefix, resource.credentialHeaders)
      : [];
    const send = (bearer: string | undefined) =>
      Effect.flatMap(
        Effect.promise(() =>
          observedUpstream(services, observe, {
            method: "GET",
            url,
            headers: [
              ["User-Agent", services.userAgent],
              ["Accept", mimeType || "*/*"],
              ...credentials,
              ...(bearer === undefined ? [] : [["Authorization", `Bearer ${bearer}`] as const]),
            ],
            signal: ctx.mcpReq.signal,
          }),
        ),
        Either.mapLeft((failure) => failed(failure.kind, failure.message)),
      );
    // docs/api-rules.md §13: on its provider's base URL, a read sends the upstream OAuth token as tools do
    // (the caller's connection, or a consent to give first; a 401 is retried once with a fresh token).
    const sent = yield* sendWithUpstreamToken(
      services.authorization,
      onBase ? tokenRequest(services, compiled, { provider }, principal) : undefined,
      send,
    );
    if (sent.kind === "failure") return yield* failed("refused", sent.message);
    if (sent.kind === "consent") return new ConsentRequired(sent);
    const { response } = sent;
    if (response.status < 200 || response.status > 299)
      return yield* failed("status", `upstream answered HTTP ${response.status}`);
    const type = mimeType || response.contentType;
    if (isTextualType(type))
      return {
        contents: [{ uri, ...(type ? { mimeType: type } : {}), text: bodyText(response, services.limits) }],
      } satisfies ReadResourceResult;
    if (response.truncated)
      return yield* failed("size", `the resource is larger than ${services.limits.maxResponseBytes} bytes`);
    return { contents: [{ uri, mimeType: type, blob: response.body.toString("base64") }] } satisfies ReadResourceResult;
  });

/** The request a tools/call answers: its headers (when the SDK has them), its id and its abort signal. */
interface ToolCallRequest {
  readonly incoming: Headers | undefined;
  readonly id: string | number;
  readonly signal: AbortSignal;
}

/**
 * A tools/call run as the SDK handler and the fast lane both run it: registered so that the caller's
 * `notifications/cancelled` for the request id aborts the upstream call; a failure the model can act on is a
 * tool error result, any other failure is thrown as its JSON-RPC error.
 */
const runToolCall = async (
  services: UpstreamServices,
  observe: UpstreamObserver,
  compiled: CompiledServer,
  caller: string,
  principal: McpCaller,
  tool: CompiledTool,
  args: unknown,
  request: ToolCallRequest,
): Promise<CallToolResult | ConsentRequired> => {
  const call = services.inFlight.start(caller, request.id, request.signal);
  try {
    const exit = await services.runner.runPromiseExit(
      callTool(services, observe, compiled, tool, args, request.incoming, call.signal, principal),
    );
    return Exit.isFailure(exit) ? toolFailure(exit.cause, services.log) : exit.value;
  } finally {
    call.done();
  }
};

const noError = () => undefined;

/** A fresh low-level MCP server answering from `compiled` (one per HTTP exchange). */
export const buildMcpServer = (
  services: UpstreamServices,
  compiled: CompiledServer,
  caller: string,
  principal: McpCaller,
  channel: ConsentChannel = { era: "modern", urlElicitation: () => false },
): Server => {
  const server = new Server(compiled.serverInfo, {
    capabilities: { tools: {}, prompts: {}, resources: {}, completions: {} },
    ...(compiled.instructions !== "" ? { instructions: compiled.instructions } : {}),
  });
  const { log, instrumentation } = services;
  /** Runs a handler as one observed operation: a throw is its error, an answer none. */
  const observed = <T>(method: string, run: (observe: UpstreamObserver) => T | Promise<T>) =>
    instrumentation.operation({ method }, async (observe) => run(observe), noError);
  /** The one way a tool runs, for tools/call and for useTool alike. */
  const runTool = async (
    observe: UpstreamObserver,
    tool: CompiledTool,
    args: unknown,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> => {
    const result = await runToolCall(services, observe, compiled, caller, principal, tool, args, {
      incoming: ctx.http?.req?.headers,
      id: ctx.mcpReq.id,
      signal: ctx.mcpReq.signal,
    });
    return result instanceof ConsentRequired ? consentAnswer(channel, ctx, result.consent) : result;
  };
  // Label values stay bounded: the name of a tool the server answers to, else none.
  const discoveryNames = new Set(compiled.discovery ? discoveryToolList(compiled).map((t) => t.name) : []);
  const toolNameOf = (name: string) =>
    compiled.discovery ? (discoveryNames.has(name) ? name : undefined) : compiled.tools.get(name)?.row.name;
  server.setRequestHandler("tools/list", (request) =>
    observed("tools/list", () => {
      if (compiled.discovery) return { tools: discoveryToolList(compiled) };
      const page = toolListPage(compiled.toolList, request.params?.cursor);
      if (Either.isLeft(page)) throw rpcFailure(Cause.fail(page.left), log, "tools/list");
      return page.right;
    }),
  );
  server.setRequestHandler(
    "tools/call",
    guarded(log, "tools/call", (request, ctx) =>
      instrumentation.operation(
        { method: "tools/call", toolName: toolNameOf(request.params.name) },
        async (observe) => {
          const discovery = compiled.discovery
            ? discoveryToolCall(compiled, request.params.name, request.params.arguments)
            : undefined;
          if (discovery !== undefined) {
            if (Either.isLeft(discovery)) return toolFailure(Cause.fail(discovery.left), log);
            const answer = discovery.right;
            return answer.kind === "result" ? answer.result : runTool(observe, answer.tool, answer.arguments, ctx);
          }
          const tool = compiled.tools.get(request.params.name);
          if (tool === undefined)
            throw rpcFailure(Cause.fail(new NotFound({ kind: "tool", id: request.params.name })), log, "tools/call");
          return runTool(observe, tool, request.params.arguments, ctx);
        },
        (result) => ("isError" in result && result.isError === true ? "tool_error" : undefined),
      ),
    ),
  );
  server.setRequestHandler("prompts/list", () =>
    observed("prompts/list", () => ({ prompts: [...compiled.promptList] })),
  );
  server.setRequestHandler(
    "prompts/get",
    guarded(log, "prompts/get", (request) =>
      observed("prompts/get", (): GetPromptResult => {
        const prompt = compiled.prompts.get(request.params.name);
        if (prompt === undefined)
          throw rpcFailure(Cause.fail(new NotFound({ kind: "prompt", id: request.params.name })), log, "prompts/get");
        const rendered = renderPrompt(prompt, request.params.arguments ?? {});
        if (Either.isLeft(rendered)) throw rpcFailure(Cause.fail(rendered.left), log, "prompts/get");
        return {
          ...(prompt.description !== "" ? { description: prompt.description } : {}),
          messages: rendered.right.map((m) => ({
            role: m.role,
            content: { type: "text" as const, text: m.content.text },
          })),
        };
      }),
    ),
  );
  // Prompt arguments are free text: there is nothing to complete, so completion answers with no values.
  server.setRequestHandler("completion/complete", () =>
    observed("completion/complete", () => ({ completion: { values: [], hasMore: false } })),
  );
  server.setRequestHandler("resources/list", () =>
    observed("resources/list", () => ({ resources: [...compiled.resourceList] })),
  );
  // Resources are concrete URLs; no template is offered, but the method the capability implies answers.
  server.setRequestHandler("resources/templates/list", () =>
    observed("resources/templates/list", () => ({ resourceTemplates: [] })),
  );
  // A 2025-era cancellation comes in a request of its own: abort the caller's call it names, if still running.
  server.setNotificationHandler("notifications/cancelled", (notification) => {
    const { requestId, reason } = notification.params;
    if (requestId !== undefined) services.inFlight.cancel(caller, requestId, reason);
  });
  server.setRequestHandler(
    "resources/read",
    guarded(log, "resources/read", (request, ctx) =>
      observed("resources/read", async (observe) => {
        const resource = compiled.resources.get(request.params.uri);
        if (resource === undefined)
          throw rpcFailure(
            Cause.fail(new NotFound({ kind: "resource", id: request.params.uri })),
            log,
            "resources/read",
          );
        const exit = await services.runner.runPromiseExit(
          readResource(services, observe, compiled, resource, ctx, principal),
        );
        if (Exit.isFailure(exit)) throw rpcFailure(exit.cause, log, "resources/read");
        if (!(exit.value instanceof ConsentRequired)) return exit.value;
        return consentAnswer(
          channel,
          ctx,
          exit.value.consent,
          (text): never => {
            throw rpcFailure(
              Cause.fail(new UpstreamFailure({ kind: "refused", message: text })),
              log,
              "resources/read",
            );
          },
          "read the resource again",
        );
      }),
    ),
  );
  return server;
};

/** True when a tool runs without the SDK's request context: no forwarded headers, no upstream OAuth token. */
export const runsWithoutRequestContext = (services: UpstreamServices, compiled: CompiledServer, tool: CompiledTool) =>
  !compiled.forwardRequestHeaders &&
  (tool.provider.oauth2Config === null || services.authFetch === undefined || services.authorization === undefined);

/**
 * A tools/call of a tool that `runsWithoutRequestContext`, outside the SDK (the fast lane): the same work,
 * observations and cancellation as the SDK handler's; resolves to its result, or to the JSON-RPC error the
 * handler would throw.
 */
export const callToolDirectly = async (
  services: UpstreamServices,
  compiled: CompiledServer,
  caller: string,
  principal: McpCaller,
  tool: CompiledTool,
  args: unknown,
  id: string | number,
  signal: AbortSignal,
): Promise<
  | { readonly kind: "result"; readonly result: CallToolResult }
  | { readonly kind: "error"; readonly code: number; readonly message: string; readonly data?: unknown }
> => {
  const { log, instrumentation } = services;
  try {
    const result = await guarded(log, "tools/call", () =>
      instrumentation.operation(
        { method: "tools/call", toolName: tool.row.name },
        async (observe) => {
          const result = await runToolCall(services, observe, compiled, caller, principal, tool, args, {
            incoming: undefined,
            id,
            signal,
          });
          if (result instanceof ConsentRequired) throw new Error("a consent reached the fast lane");
          return result;
        },
        (result) => (result.isError === true ? "tool_error" : undefined),
      ),
    )();
    return { kind: "result", result };
  } catch (error) {
    // What the SDK sends for a thrown error (its Protocol's error branch).
    const thrown = error as { code?: unknown; message?: unknown; data?: unknown };
    return {
      kind: "error",
      code: Number.isSafeInteger(thrown.code) ? (thrown.code as number) : -32603,
      message: typeof thrown.message === "string" ? thrown.message : "Internal error",
      ...(thrown.data !== undefined ? { data: thrown.data } : {}),
    };
  }
};
