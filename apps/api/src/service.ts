import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { DescriptionFetcher } from "@mcpsm/domain/openapi-import";
import { workerReaderLayer } from "@mcpsm/openapi-import";
import { ALL_SCOPES } from "@mcpsm/domain";
import { Storage } from "@mcpsm/domain/storage";
import { startGitSyncWorker } from "@mcpsm/git-sync";
import {
  aesGcmCipher,
  aesGcmCipherLayer,
  hmacPageTokenSignerLayer,
  quotasLayer,
  responseShapingLayer,
  UpstreamAddressCheck,
} from "@mcpsm/domain/use-cases";
import { MCP_SCOPE } from "@mcpsm/mcp-oauth";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import { createUpstreamOAuth } from "@mcpsm/upstream-oauth";
import { credentialPages } from "@mcpsm/caller-credentials";
import { ServerGraphCache } from "@mcpsm/storage-postgres/server-graph-cache";
import { Effect, Layer, ManagedRuntime, Option } from "effect";
import {
  combineInstrumentation,
  createMcpRuntime,
  defaultMcpSettings,
  type McpInstrumentation,
  closeResponseShaping,
  responseShapingService,
  upstreamAgent,
} from "@mcpsm/mcp-runtime";
import type { Middleware } from "koa";
import pino, { type Logger } from "pino";
import { createRequestHandler } from "./app.js";
import { ownAuthorizationServer as ownAuthorizationServerOf } from "./auth/own-authorization-server.js";
import { redisCancellationRelay } from "./mcp/redis-cancellation-relay.js";
import type { AppConfig } from "./config/app-config.js";
import { DEFAULT_GIT_SYNC_CONFIG } from "./config/git-sync-config.js";
import { DEFAULT_OPERATIONS_SETTINGS } from "./config/operations-config.js";
import { DEFAULT_SECURITY_SETTINGS } from "./config/security-config.js";
import { startAuditRetention } from "./operations/audit-retention.js";
import { startApprovalExpiry } from "./operations/approval-expiry.js";
import { startCallLogRetention } from "./operations/call-log-retention.js";
import { type CallLogWriter, startCallLogWriter } from "./operations/call-log-writer.js";
import { mcpRequestNoting } from "./http/mcp-request-note.js";
import { startMetricsListener } from "./operations/metrics-listener.js";
import type { ReadCacheCounters } from "./operations/cache-metrics.js";
import { createRateLimiter, tenantBudget } from "./security/rate-limit.js";
import { localEncryptionKey } from "./local-state/data-dir.js";
import { policyDescriptionFetcher } from "./openapi-import/description-fetcher.js";
import { ImportGate, importGate } from "./openapi-import/import-gate.js";
import { upstreamAddressCheck } from "./security/upstream-address-check.js";
import { DEFAULT_IMPORT_SETTINGS } from "./config/import-config.js";
import { accessTokenVerifier } from "./auth/configured-verifiers.js";
import { derivedKey } from "./security/derived-key.js";

/** A running service. */
export interface RunningService {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  readonly url: string;
  readonly server: Server;
  /** The Prometheus scrape URL (`http://host:port/metrics`), when the metrics listener runs. */
  readonly metricsUrl?: string | undefined;
  /** The tool-call log's writer (`flush` stores what is buffered: tests). */
  readonly callLog: Pick<CallLogWriter, "flush" | "dropped">;
  /** Sweeps expired approvals now (they are swept every minute on their own): tests. */
  readonly sweepApprovals: () => Promise<void>;
  /** Stops accepting connections, lets in-flight requests finish, then releases the store. */
  readonly close: () => Promise<void>;
}

export interface ServiceOptions {
  /** The store; defaults to the in-memory one. */
  readonly storage?: Layer.Layer<Storage>;
  /** Readiness of the store (for /readyz); defaults to a cheap query through the storage port. */
  readonly ready?: () => Promise<boolean>;
  /** Runs after the listener closed and the runtime was disposed (e.g. closing the database). */
  readonly onClose?: () => Promise<void>;
  readonly logger?: Logger;
  /** The store's point-read cache counters, when it keeps one (metrics). */
  readonly readCacheCounters?: (() => ReadCacheCounters | undefined) | undefined;
}

/** Starts the service with `config`: store, keys, authentication, then the HTTP listener. */
export const startService = async (config: AppConfig, options: ServiceOptions = {}): Promise<RunningService> => {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const dataDir = resolve(config.dataDir);
  const encryptionKey = Option.isSome(config.encryptionKey)
    ? config.encryptionKey.value
    : await localEncryptionKey(dataDir);
  const storage = options.storage ?? MemoryStorageLive;
  if (options.storage === undefined) logger.info("storage: in memory (records are lost when the process stops)");
  const oldKeys = config.encryptionKeysOld ?? [];
  const security = config.security ?? DEFAULT_SECURITY_SETTINGS;
  const mcpSettings = config.mcp ?? defaultMcpSettings();
  const imports = config.imports ?? DEFAULT_IMPORT_SETTINGS;
  // Every outbound call under the upstream address policy goes through one agent (one pool of connections,
  // closed with the service): MCP upstream calls and token endpoints, import.url, git pushes.
  const upstream = upstreamAgent(mcpSettings);
  // import.url (docs/api-rules.md §15) is fetched under the upstream address policy and deadline.
  const descriptionFetcher = policyDescriptionFetcher(upstream, mcpSettings.upstreamTimeoutMs);
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      storage,
      aesGcmCipherLayer(encryptionKey, oldKeys),
      hmacPageTokenSignerLayer(
        derivedKey(encryptionKey, "page-token"),
        oldKeys.map((key) => derivedKey(key, "page-token")),
      ),
      quotasLayer(config.quotas),
      // Response filters checked on write and previewed by the runtime's own shaping (docs/api-rules.md §19).
      responseShapingLayer(responseShapingService),
      // Descriptions are read in worker threads, never on this event loop (docs/security.md).
      workerReaderLayer({
        workers: imports.workers,
        queue: imports.queue,
        deadlineMs: imports.deadlineMs,
        memoryMb: imports.memoryMb,
      }),
      Layer.succeed(ImportGate, importGate(imports.perTenant)),
      // The upstream address policy, at write time too (an oauth2Config's token URL).
      Layer.succeed(UpstreamAddressCheck, upstreamAddressCheck(mcpSettings.upstreamAllowedNetworks)),
      Layer.succeed(DescriptionFetcher, descriptionFetcher),
    ),
  );
  // Built once: the git sync worker uses the store directly; GET /servers/{id} the store's read cache, when its
  // layer holds one (the PostgreSQL adapter's ServerGraphCache).
  const store = await runtime.runPromise(Storage);
  const graphCache = Option.getOrUndefined(await runtime.runPromise(Effect.serviceOption(ServerGraphCache)));
  const operations = config.operations ?? DEFAULT_OPERATIONS_SETTINGS;
  // Metrics are collected (and prom-client loaded) only when they can be scraped.
  const metrics =
    operations.metricsPort === undefined ? undefined : (await import("./operations/metrics.js")).createServiceMetrics();
  // Tracing costs nothing unless an OTLP endpoint is configured: not even loading the OpenTelemetry SDK.
  const tracing =
    operations.tracesUrl === undefined
      ? undefined
      : (await import("./operations/tracing.js")).createTracing({
          tracesUrl: operations.tracesUrl,
          serviceName: operations.serviceName,
        });
  // With tracing, effects run through `runner` so their SQL statements become spans of the current span.
  const runner = tracing === undefined ? runtime : tracing.runner(runtime);
  // The tool-call log (docs/api-rules.md §24): calls are buffered and stored in batches off the request path.
  const callLog = startCallLogWriter({
    store: store.calls,
    logger,
    captureArguments: operations.callLogCaptureArguments ?? [],
    onDropped: (count) => metrics?.counters.callLogDropped.inc(count),
  });
  // docs/api-rules.md §20: approvals asked, decided and expired, counted next to the other metrics.
  const approvalMetrics =
    metrics === undefined
      ? undefined
      : (await import("./operations/approval-metrics.js")).createApprovalMetrics(metrics.registry);
  const instrumentations = [
    mcpRequestNoting,
    metrics === undefined
      ? undefined
      : { ...metrics.mcpInstrumentation, approvalRequested: approvalMetrics?.onRequested },
    tracing?.mcpInstrumentation,
  ].filter((i): i is McpInstrumentation => i !== undefined);
  const { verifier, mcpVerifier, authorizationServers, devJwks } = await accessTokenVerifier(config, dataDir, logger);
  // Ready means the store answers a real (cheap) query.
  const ready =
    options.ready ??
    (() =>
      runner.runPromise(
        Effect.flatMap(Storage, (s) => s.read((tx) => tx.countServers(""))).pipe(
          Effect.as(true),
          Effect.catchAll(() => Effect.succeed(false)),
        ),
      ));
  const rateLimiter = createRateLimiter(security.rateLimit, logger);
  if (rateLimiter !== undefined && security.rateLimit.redisUrl !== undefined && !(await rateLimiter.ready(2_000)))
    logger.warn("rate limits: Redis did not answer at start; counting in this process until it does");
  // The MCP endpoint; its default public URL is the listening URL, known once listening.
  let listenUrl = "";
  const publicBase = () =>
    Option.match(mcpSettings.publicUrl, {
      onNone: () => listenUrl,
      onSome: (url) => `${url.origin}${url.pathname.replace(/\/+$/, "")}`,
    });
  // The service as its MCP endpoints' authorization server (opt-in; on by default in dev-auth mode).
  const ownAuthorizationServer = ownAuthorizationServerOf(config, {
    logger,
    publicBase,
    runner,
    runtime,
    encryptionKey,
    oldKeys,
    trustProxyHops: security.http.trustProxyHops,
    verifier,
    fetch: () => mcp.authFetch,
  });
  // Upstream OAuth (docs/api-rules.md §13): consent states are signed with a key derived from ENCRYPTION_KEY.
  const upstreamOAuth = createUpstreamOAuth({
    authorizationCode: {
      runner: runtime,
      stateKey: derivedKey(encryptionKey, "upstream-oauth-state"),
      publicUrl: publicBase,
    },
  });
  // With Redis, a 2025-era cancellation reaching another instance than the call's still aborts it.
  const cancellationRelay =
    security.rateLimit.redisUrl === undefined
      ? undefined
      : redisCancellationRelay(security.rateLimit.redisUrl, `${security.rateLimit.keyPrefix}:mcp-cancelled`, logger);
  const mcp = createMcpRuntime({
    runner,
    settings: mcpSettings,
    dispatcher: upstream,
    listenUrl: () => listenUrl,
    oauth: ownAuthorizationServer === undefined ? mcpVerifier : ownAuthorizationServer.verifierBefore(mcpVerifier),
    defaultAuthorizationServers:
      ownAuthorizationServer === undefined ? authorizationServers : () => [publicBase(), ...authorizationServers],
    ...(ownAuthorizationServer === undefined ? {} : { oauthScopes: [MCP_SCOPE] }),
    logger,
    instrumentation: instrumentations.reduce<McpInstrumentation | undefined>(
      (outer, inner) => (outer === undefined ? inner : combineInstrumentation(outer, inner)),
      undefined,
    ),
    tenantRateLimit: rateLimiter === undefined ? undefined : tenantBudget(rateLimiter),
    // docs/api-rules.md §13: tools of providers with oauth2Config are called with an upstream access token.
    upstreamAuthorization: upstreamOAuth,
    cancellationRelay,
    callLog,
  });
  // How full the MCP path's caches are and how often they miss (docs/decisions.md, "manysrv").
  if (metrics !== undefined)
    (await import("./operations/cache-metrics.js")).registerCacheMetrics(metrics.registry, {
      compiled: mcp.cache,
      gateReplays: mcp.gateReplays,
      gateAdmissions: mcp.gateAdmissions,
      readCache: options.readCacheCounters,
    });
  const authUrl =
    config.authUrl ??
    (config.auth.mode !== "dev" && /^https?:\/\//i.test(config.auth.issuer) ? config.auth.issuer : undefined);
  // The store's read cache, when it keeps one: GET /servers/{id} keeps its serialised answer per cached graph.
  const handler = createRequestHandler({
    cachedServerGraph: graphCache?.cachedServerGraph,
    runtime: runner,
    verifier,
    logger,
    ready,
    mcp,
    ...(ownAuthorizationServer === undefined ? {} : { oauthServer: ownAuthorizationServer }),
    rateLimiter,
    corsOrigins: security.corsOrigins,
    trustProxyHops: security.http.trustProxyHops,
    observe: [metrics?.httpMiddleware, approvalMetrics?.apiDecisions, tracing?.httpMiddleware].filter(
      (m): m is Middleware => m !== undefined,
    ),
    // The kept-answer lane records its answers in the metrics itself; with traces on it is off (spans are the
    // tracing middleware's). The approval counter only looks at POSTs.
    ...(tracing === undefined ? { observeKeptAnswer: metrics?.observeRequest ?? (() => {}) } : {}),
    ...(approvalMetrics === undefined
      ? {}
      : { approvalDecided: (approval) => approvalMetrics.onDecided(approval, "page") }),
    ...(devJwks ? { devJwks } : {}),
    ...(authUrl === undefined ? {} : { authUrl }),
    // docs/api-rules.md §23: the form where a caller enters its own value of a per-caller variable.
    callerCredentials: credentialPages({
      runner: runtime,
      csrfKey: derivedKey(encryptionKey, "caller-credential-csrf"),
      publicUrl: publicBase,
      onStored: () => metrics?.counters.callerValuesStored.inc(),
    }),
    ...(upstreamOAuth.pages === undefined
      ? {}
      : {
          upstreamConsent: {
            authorize: upstreamOAuth.pages.authorize,
            callback: (query: URLSearchParams, requestId: string) =>
              (upstreamOAuth.pages as NonNullable<typeof upstreamOAuth.pages>).callback(
                query,
                mcp.authFetch,
                requestId,
              ),
          },
        }),
    ...(authUrl === undefined || config.consoleClientId === undefined || config.auth.mode === "dev"
      ? {}
      : {
          consoleOAuth: {
            authorizationEndpoint: `${authUrl.replace(/\/+$/, "")}/oauth2/auth`,
            tokenEndpoint: `${authUrl.replace(/\/+$/, "")}/oauth2/token`,
            clientId: config.consoleClientId,
            scope: ALL_SCOPES.join(" "),
          },
        }),
  });
  // Slow clients must not hold connections forever: the head must arrive within headersTimeout and the whole
  // request within requestTimeout (checked every second rather than Node's default 30 s); heads over
  // maxHeaderBytes answer 431.
  const limits = security.http;
  const server = createServer(
    {
      maxHeaderSize: limits.maxHeaderBytes,
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
    handler,
  );
  server.listen(config.port, config.host);
  await new Promise<void>((resolveListen, reject) => {
    server.once("listening", resolveListen);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  listenUrl = url;
  logger.info({ url }, "listening");
  const auditRetention = startAuditRetention(runtime, operations.auditRetentionDays, logger);
  const callLogRetention = startCallLogRetention(runtime, operations.callLogRetentionDays ?? 30, logger);
  const approvalExpiry = startApprovalExpiry(runtime, logger, (swept) => approvalMetrics?.onExpired(swept));
  const metricsListener =
    metrics === undefined
      ? undefined
      : await startMetricsListener(metrics.registry, config.host, operations.metricsPort ?? 0);
  if (metricsListener !== undefined) logger.info({ url: metricsListener.url }, "metrics listening");
  // The git sync worker (docs/api-rules.md §17): git hosts are reached under the upstream address policy.
  const gitSyncConfig = config.gitSync ?? DEFAULT_GIT_SYNC_CONFIG;
  const gitSync = !gitSyncConfig.enabled
    ? undefined
    : startGitSyncWorker({
        storage: store,
        cipher: aesGcmCipher(encryptionKey, oldKeys),
        dispatcher: upstream,
        settings: gitSyncConfig,
        onPush: (report) => metrics?.counters.gitPushes.inc({ outcome: report.reason ?? report.result }),
        logger: {
          warn: (fields, message) => logger.warn(fields, message),
          error: (fields, message) => logger.error(fields, message),
        },
      });
  return {
    url,
    server,
    metricsUrl: metricsListener?.url,
    callLog,
    sweepApprovals: approvalExpiry.sweep,
    close: async () => {
      await new Promise<void>((done) => server.close(() => done()));
      await metricsListener?.close();
      await tracing?.close();
      await auditRetention.stop();
      await gitSync?.stop();
      await mcp.close();
      await callLog.stop();
      await callLogRetention.stop();
      await approvalExpiry.stop();

      await closeResponseShaping();
      // After everything that sends through it has stopped.
      await upstream.close();
      await cancellationRelay?.close();
      await rateLimiter?.close();
      await runtime.dispose();
      await options.onClose?.();
    },
  };
};
