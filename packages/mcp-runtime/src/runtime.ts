import type { lookup } from "node:dns";
import type { Dispatcher } from "undici";
import { NotFound, ResourceExhausted } from "@mcpsm/domain/errors";
import type { McpCaller } from "@mcpsm/domain/mcp";
import type { IncomingMessage, ServerResponse } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import {
  CLIENT_CAPABILITIES_META_KEY,
  createMcpHandler,
  hostHeaderValidationResponse,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import { Cause, Exit, Option } from "effect";
import { authenticator } from "./auth/authenticate.js";
import { mcpGate } from "./auth/gate.js";
import type { OAuthAccessTokenVerifier } from "@mcpsm/domain/mcp";
import { CompiledServerCache } from "./compiled-cache.js";
import type { CompiledServer } from "./compiled-server.js";
import type { McpSettings } from "./config.js";
import type { CancellationRelay } from "./exchange/cancellation-relay.js";
import { InFlightCalls } from "./exchange/in-flight-calls.js";
import { consoleLogger, httpFailure, type McpFailure, type McpLogger } from "./error-mapping.js";
import { protectedResourceMetadata } from "./http/protected-resource-metadata.js";
import { preflightResponse, withCors } from "./http/cors.js";
import { hostCheck } from "./http/host-check.js";
import { publicSite } from "./http/public-url.js";
import { isMcpPath, routeOf } from "./http/routing.js";
import { type McpInstrumentation, NO_INSTRUMENTATION } from "./instrumentation.js";
import { callToolDirectly, prepareDirectCall, runsWithoutRequestContext } from "./calls/direct-call.js";
import type { UpstreamServices } from "./calls/upstream-services.js";
import type { McpCallLog } from "./calls/call-log.js";
import { buildMcpServer } from "./mcp-server.js";
import { longRunningOf } from "./long-running/long-running-of.js";
import { fastLane } from "./exchange/fast-lane.js";
import { type FrameHeaders, setFrameHeaders } from "./exchange/frame-headers.js";
import type { McpAuthentication } from "./auth/mcp-authentication.js";
import {
  type EffectRunner,
  type PolicyFetch,
  policyFetch,
  type UpstreamAuthorization,
  upstreamAgent,
} from "@mcpsm/upstream-http";

export interface McpRuntimeOptions {
  readonly runner: EffectRunner;
  readonly settings: McpSettings;
  /** The URL the service listens on (`http://127.0.0.1:8080`): the default public URL. Read on first use. */
  readonly listenUrl: string | (() => string);
  /** Accepts OAuth access tokens besides server tokens when given. */
  readonly oauth?: OAuthAccessTokenVerifier | undefined;
  /** Authorization servers to advertise when MCP_AUTHORIZATION_SERVERS is not set (e.g. AUTH_ISSUER). */
  readonly defaultAuthorizationServers?: ReadonlyArray<string> | (() => ReadonlyArray<string>);
  /** `scopes_supported` of the protected resource metadata (what a client should ask its authorization server for). */
  readonly oauthScopes?: ReadonlyArray<string>;
  /** Name resolution for upstream hosts (tests inject one); defaults to the system's. */
  readonly resolve?: typeof lookup;
  /**
   * The agent upstream calls go through, owned (and closed) by the caller, who shares it with its other
   * outbound calls (`upstreamAgent(settings)`); none: the runtime makes its own and closes it.
   */
  readonly dispatcher?: Dispatcher | undefined;
  /** Where outages, configuration faults and defects are logged (default: the console). */
  readonly logger?: McpLogger | undefined;
  readonly userAgent?: string;
  /** Observes MCP operations and upstream exchanges (metrics, traces); none by default. */
  readonly instrumentation?: McpInstrumentation | undefined;
  /** Takes every tools/call when it ends (the tool-call log, docs/api-rules.md §24); none by default. */
  readonly callLog?: McpCallLog | undefined;
  /**
   * The per-tenant rate limit, charged to the server's owner once the caller may use the server; its
   * headers (RateLimit-*) go on the answer. None: no per-tenant limit.
   */
  readonly tenantRateLimit?: ((tenant: string) => Promise<TenantRateDecision>) | undefined;
  /** Access tokens for tools of providers with `oauth2Config` (`@mcpsm/upstream-oauth`); none: sent without. */
  readonly upstreamAuthorization?: UpstreamAuthorization | undefined;
  /** Carries 2025-era cancellations to the instance running the call (several instances); none by default. */
  readonly cancellationRelay?: CancellationRelay | undefined;
  /**
   * Answers the common tools/list and tools/call POSTs (both eras) of the Node face without the SDK's
   * per-exchange machinery (exchange/fast-lane.ts); on by default. Off: every request takes the SDK path.
   */
  readonly fastLane?: boolean | undefined;
}

/** One request against a tenant's rate limit. */
export interface TenantRateDecision {
  readonly allowed: boolean;
  readonly retryAfterSeconds: number;
  /** Headers describing the budget (RateLimit-*), sent with the answer either way. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface McpRuntime {
  /** True for the paths this runtime answers: `/mcp/*` and their protected resource metadata. */
  readonly matches: (path: string) => boolean;
  /** Web-standard face. */
  readonly fetch: (request: Request) => Promise<Response>;
  /**
   * Node face for `(req, res)` servers and frameworks (Koa: `ctx.respond = false`). `frame`: headers the host
   * gives every answer (request id, security headers, …) as a flat name/value list, sent before the runtime's
   * own (a name the runtime also sends takes the runtime's value in the frame's place), as Node would send them
   * had the host set them with `setHeader` first; the fast lane writes both in one `writeHead`.
   */
  readonly handleNode: (req: IncomingMessage, res: ServerResponse, frame?: FrameHeaders) => Promise<void>;
  readonly cache: CompiledServerCache;
  /** How many requests the fast lane answered without the SDK path (tests and metrics). */
  readonly fastLaneAnswers: () => number;
  /** How many admissions the gate replayed without reading the store (auth/admission-memo.ts; tests). */
  readonly gateReplays: () => number;
  /** How many requests the gate admitted or refused, replayed or not (metrics). */
  readonly gateAdmissions: () => number;
  /** Outbound HTTP under the upstream network policy (for authorization servers outside an MCP exchange). */
  readonly authFetch: PolicyFetch;
  readonly close: () => Promise<void>;
}

/** `response` with `headers` added (a copy when its own headers are immutable). */
const withHeaders = (response: Response, headers: Readonly<Record<string, string>>): Response => {
  try {
    for (const [key, value] of Object.entries(headers)) response.headers.set(key, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const [key, value] of Object.entries(headers)) copy.headers.set(key, value);
    return copy;
  }
};

const noError = () => undefined;

/** Serves every composed server at `/mcp/{serverId}` (MCP Streamable HTTP, stateless, both protocol eras). */
export const createMcpRuntime = (options: McpRuntimeOptions): McpRuntime => {
  const { settings, runner } = options;
  const log = options.logger ?? consoleLogger;
  const site = publicSite(settings, options.listenUrl);
  const authenticate = authenticator(runner, site, options.oauth);
  const metadata = protectedResourceMetadata(
    site,
    () =>
      Option.getOrElse(settings.authorizationServers, () => {
        const servers = options.defaultAuthorizationServers ?? [];
        return typeof servers === "function" ? servers() : servers;
      }),
    options.oauthScopes ?? [],
  );
  const dispatcher = options.dispatcher ?? upstreamAgent(settings, options.resolve);
  const limits = { timeoutMs: settings.upstreamTimeoutMs, maxResponseBytes: settings.upstreamMaxResponseBytes };
  // Token endpoints are reached under the upstream policy too; their answers are small.
  const authFetch = policyFetch(dispatcher, {
    ...limits,
    maxResponseBytes: Math.min(limits.maxResponseBytes, 256 * 1024),
  });
  const cache = new CompiledServerCache(runner, settings.compiledCacheMiB * 1024 * 1024);
  const gate = mcpGate(runner, cache, authenticate, settings.admissionMemoEntries);
  const inFlight = new InFlightCalls(options.cancellationRelay);
  const longRunning = longRunningOf(settings, runner);
  const onError = (error: Error) => log.warn({ err: error }, "mcp request failed");
  // Whether a 2025-era client declared URL elicitation is said once, in its `initialize`; stateless, that
  // request is answered by another server instance than its tools/call, so the answer is kept here per caller
  // (bounded). On a 2026-07-28 request it travels in the request's own envelope.
  const legacyUrlElicitation = new Map<string, boolean>();
  const rememberInitialize = async (request: Request, caller: string) => {
    if (request.method !== "POST" || request.headers.has("mcp-protocol-version")) return;
    if (Number(request.headers.get("content-length") ?? "0") > 64 * 1024) return;
    try {
      const body = (await request.clone().json()) as {
        method?: unknown;
        params?: { capabilities?: { elicitation?: { url?: unknown } } };
      };
      if (body?.method !== "initialize") return;
      legacyUrlElicitation.delete(caller);
      legacyUrlElicitation.set(caller, body.params?.capabilities?.elicitation?.url !== undefined);
      if (legacyUrlElicitation.size > 10_000)
        legacyUrlElicitation.delete(legacyUrlElicitation.keys().next().value ?? "");
    } catch {
      // Not JSON: the SDK answers it.
    }
  };
  const modernUrlElicitation = (envelope: unknown): boolean => {
    const record = (envelope ?? {}) as Record<string, unknown>;
    const capabilities = (record[CLIENT_CAPABILITIES_META_KEY] ?? record.clientCapabilities) as
      | { elicitation?: { url?: unknown } }
      | undefined;
    return capabilities?.elicitation?.url !== undefined;
  };
  const services: UpstreamServices = {
    runner,
    log,
    dispatcher,
    limits,
    userAgent: options.userAgent ?? "mcp-server-manager",
    instrumentation: options.instrumentation ?? NO_INSTRUMENTATION,
    callLog: options.callLog,
    inFlight,
    authorization: options.upstreamAuthorization,
    authFetch,
    pageUrl: site.pageUrl,

    approvalUrl: site.approvalUrl,
    longRunning,
  };
  // The fast lane's synthetic requests (what would the SDK answer?) are no operation of anyone's: unobserved.
  const quietServices: UpstreamServices = { ...services, instrumentation: NO_INSTRUMENTATION, callLog: undefined };
  const handler = createMcpHandler(
    (ctx) => {
      const compiled = ctx.authInfo?.extra?.compiled as CompiledServer | undefined;
      const caller = ctx.authInfo?.extra?.caller;
      const principal = ctx.authInfo?.extra?.principal as McpCaller | undefined;
      if (compiled === undefined || typeof caller !== "string" || principal === undefined)
        throw new Error("MCP request reached the handler without a compiled server");
      return buildMcpServer(
        ctx.authInfo?.extra?.quiet === true ? quietServices : services,
        compiled,
        caller,
        principal,
        {
          era: ctx.era,
          urlElicitation: (request) =>
            ctx.era === "modern" ? modernUrlElicitation(request.mcpReq.envelope) : legacyUrlElicitation.get(caller),
        },
      );
    },
    { legacy: "stateless", onerror: onError },
  );

  /** The authInfo an exchange hands to the SDK (the factory reads the server and the caller from it). */
  const authInfoOf = (
    auth: McpAuthentication,
    serverId: string,
    extra: { compiled: CompiledServer; caller: string; quiet?: boolean },
  ) => ({
    token: "",
    clientId: auth.clientId,
    scopes: [...auth.scopes],
    ...(auth.expiresAt !== undefined ? { expiresAt: auth.expiresAt } : {}),
    resource: new URL(site.resourceUrl(serverId)),
    extra: { ...extra, principal: auth.caller },
  });

  /**
   * One MCP exchange: transport guards (Host, Origin; then a preflight is answered without a credential),
   * authentication, the server as of now, the domain's access rule. Answers to an allowed browser origin are
   * readable by it (CORS).
   */
  const serveMcp = async (request: Request, serverId: string): Promise<Response> => {
    const rejected =
      hostHeaderValidationResponse(request, [...site.allowedHosts()]) ??
      originValidationResponse(request, [...site.allowedOrigins()]);
    if (rejected !== undefined) return rejected;
    if (request.method === "OPTIONS") return preflightResponse(request);
    return withCors(request, await exchange(request, serverId));
  };

  const exchange = async (request: Request, serverId: string): Promise<Response> => {
    const failed = (cause: Cause.Cause<McpFailure>) =>
      httpFailure(cause, { log, metadataUrl: site.metadataUrl(serverId), path: new URL(request.url).pathname });
    const admitted = await gate.admit(request.headers.get("authorization"), serverId);
    if (Exit.isFailure(admitted)) return failed(admitted.cause);
    const { auth, compiled, caller } = admitted.value;
    const budget = await options.tenantRateLimit?.(compiled.tenant);
    if (budget !== undefined && !budget.allowed)
      return withHeaders(
        failed(
          Cause.fail(
            new ResourceExhausted({
              detail: `too many requests for this server's tenant; retry after ${budget.retryAfterSeconds} s`,
              retryAfterSeconds: budget.retryAfterSeconds,
            }),
          ),
        ),
        budget.headers,
      );
    if (options.upstreamAuthorization !== undefined) await rememberInitialize(request, caller);
    const answer = await handler.fetch(request, { authInfo: authInfoOf(auth, serverId, { compiled, caller }) });
    return budget === undefined ? answer : withHeaders(answer, budget.headers);
  };

  const route = (request: Request): Promise<Response> | Response => {
    // An empty Host header is no host at all (and the Node face then builds `http:///mcp/…`, whose path is
    // wrong): refuse it like a wrong one (the SDK's 403), before the path is read.
    if ((request.headers.get("host") ?? "") === "") {
      const refused = hostHeaderValidationResponse(request, []);
      if (refused !== undefined) return refused;
    }
    const path = new URL(request.url).pathname;
    const target = routeOf(path);
    if (target?.kind === "mcp") return serveMcp(request, target.serverId);
    if (target?.kind === "metadata") return metadata(request, target.serverId);
    return httpFailure(Cause.fail(new NotFound({ kind: "path", id: path })), { log, metadataUrl: "", path });
  };

  // Whatever escapes (a bug) is answered by the edge mapping as a logged internal error, never a hang.
  const fetch = async (request: Request): Promise<Response> => {
    try {
      return await route(request);
    } catch (error) {
      return httpFailure(Cause.die(error), { log, metadataUrl: "", path: new URL(request.url).pathname });
    }
  };

  const slowNode = toNodeHandler({ fetch }, { onerror: onError });
  const fastNode = fastLane({
    hostAllowed: hostCheck(site),
    // A refusal is the SDK path's to answer.
    admit: async (authorization, serverId) => {
      const admitted = await gate.admit(authorization, serverId);
      return Exit.isFailure(admitted) ? undefined : admitted.value;
    },
    charge: async (tenant) => options.tenantRateLimit?.(tenant),
    learntBytes: (compiled, bytes) => cache.charge(compiled, bytes),
    keepAnswer: (compiled, head) => cache.share(compiled, head),
    refusal: (serverId, budget) =>
      withHeaders(
        httpFailure(
          Cause.fail(
            new ResourceExhausted({
              detail: `too many requests for this server's tenant; retry after ${budget.retryAfterSeconds} s`,
              retryAfterSeconds: budget.retryAfterSeconds,
            }),
          ),
          { log, metadataUrl: site.metadataUrl(serverId), path: `/mcp/${serverId}` },
        ),
        budget.headers,
      ),
    askSdk: (admitted, headers, body) =>
      handler.fetch(new Request(site.resourceUrl(admitted.compiled.id), { method: "POST", headers, body }), {
        authInfo: authInfoOf(admitted.auth, admitted.compiled.id, {
          compiled: admitted.compiled,
          caller: admitted.caller,
          quiet: true,
        }),
      }),
    observeList: (serverId) =>
      services.instrumentation.operation({ method: "tools/list", serverId }, async () => undefined, noError),
    runsDirectly: (compiled, tool) => runsWithoutRequestContext(services, compiled, tool),
    prepare: (admitted, tool) => prepareDirectCall(services, admitted.compiled, admitted.auth.caller, tool),
    callTool: (admitted, tool, args, id, signal, prepared, era) =>
      callToolDirectly(
        services,
        admitted.compiled,
        admitted.caller,
        admitted.auth.caller,
        tool,
        args,
        id,
        signal,
        prepared,
        era,
      ),
    defect: (error, path) => httpFailure(Cause.die(error), { log, metadataUrl: "", path }),
    slow: slowNode,
  });

  return {
    matches: isMcpPath,
    fetch,
    handleNode:
      options.fastLane === false
        ? (req, res, frame) => {
            setFrameHeaders(res, frame);
            return slowNode(req, res);
          }
        : fastNode.handle,
    fastLaneAnswers: fastNode.answered,
    gateReplays: gate.replays,
    gateAdmissions: gate.admissions,
    cache,
    authFetch,
    close: async () => {
      inFlight.close();
      longRunning.tasks.close();
      await handler.close();
      if (options.dispatcher === undefined) await dispatcher.close();
    },
  };
};
