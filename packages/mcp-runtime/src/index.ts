/**
 * @mcpsm/mcp-runtime: serves every composed server over MCP Streamable HTTP (stateless, the 2026-07-28
 * revision and 2025-era clients), turning each tools/call into the upstream REST call under a network
 * policy, with server-token and OAuth authentication and a revision-keyed cache of compiled servers.
 */
export { argumentProblems } from "./argument-validator.js";
export type { McpAuthentication } from "./auth/mcp-authentication.js";
export { type CacheLookup, CompiledServerCache } from "./compiled-cache.js";
export { type CompiledServer, compileServer } from "./compiled-server.js";
export {
  DEFAULT_UPSTREAM_MAX_RESPONSE_BYTES,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  defaultMcpSettings,
  type McpSettings,
  mcpSettingsConfig,
} from "./config.js";
export {
  combineInstrumentation,
  errorTypeOfThrown,
  errorTypeOfUpstream,
  type FilterFailure,
  type McpErrorType,
  type McpInstrumentation,
  type McpOperation,
  NO_INSTRUMENTATION,
  type OutputMismatch,
  type UpstreamExchange,
  type UpstreamObserver,
} from "./instrumentation.js";
export type { McpCallLog, ToolCallEntry } from "./calls/call-log.js";
export type { CancellationRelay, RelayedCancellation } from "./exchange/cancellation-relay.js";
export type { OAuthAccessTokenVerifier, OAuthPrincipal } from "@mcpsm/domain/mcp";
export type { ConsentChannel, ConsentNeeded } from "./calls/consent.js";
export { toolResultOf } from "./calls/tool-result.js";
export type { UpstreamServices } from "./calls/upstream-services.js";
export { buildMcpServer } from "./mcp-server.js";
// The outbound side moved to @mcpsm/upstream-http; re-exported for the service (apps/api) only.
export {
  callUpstream,
  type EffectRunner,
  type NetworkPolicy,
  networkPolicy,
  type PolicyFetch,
  policyAgent,
  policyFetch,
  policyLookup,
  type UpstreamAuthorization,
  UpstreamAddressRefused,
  upstreamAgent,
  type UpstreamCall,
  UpstreamFailure,
  type UpstreamLimits,
  type UpstreamOutcome,
  type UpstreamTokenAnswer,
  type UpstreamTokenRequest,
} from "@mcpsm/upstream-http";
export {
  consoleLogger,
  httpFailure,
  type McpFailure,
  type McpLogger,
  NoCredential,
  rateLimitedResponse,
  rpcFailure,
  toolFailure,
} from "./error-mapping.js";
export type { FrameHeaders } from "./exchange/frame-headers.js";
export { createMcpRuntime, type McpRuntime, type McpRuntimeOptions, type TenantRateDecision } from "./runtime.js";
export {
  type DiscoveryAnswer,
  discoveryToolCall,
  discoveryToolList,
  GET_TOOL_DEFINITION,
  SEARCH_TOOLS,
  USE_TOOL,
} from "./tool-discovery.js";
export { buildToolIndex } from "./tool-index.js";
export { TOOLS_PAGE_SIZE, toolListPage } from "./tool-list-page.js";
export { outputSchemaOf, promptEntry, resourceEntry, toolEntry } from "./wire/list-entries.js";
export { closeResponseShaping, responseShapingService } from "./tool-output/shaping-service.js";
