/**
 * @mcpsm/mcp-runtime: serves every composed server over MCP Streamable HTTP (stateless, the 2026-07-28
 * revision and 2025-era clients), turning each tools/call into the upstream REST call under a network
 * policy, with server-token and OAuth authentication and a revision-keyed cache of compiled servers.
 */
export { argumentProblems } from "./argument-validator.js";
export type { McpAuthentication } from "./auth/mcp-authentication.js";
export type { OAuthAccessTokenVerifier, OAuthPrincipal } from "./auth/oauth-auth.js";
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
  type McpErrorType,
  type McpInstrumentation,
  type McpOperation,
  NO_INSTRUMENTATION,
  type OutputMismatch,
  type UpstreamExchange,
  type UpstreamObserver,
} from "./instrumentation.js";
export type { CancellationRelay, RelayedCancellation } from "./exchange/cancellation-relay.js";
export {
  buildMcpServer,
  type ConsentChannel,
  type ConsentNeeded,
  type EffectRunner,
  toolResultOf,
  type UpstreamServices,
} from "./mcp-server.js";
export {
  type NetworkPolicy,
  networkPolicy,
  policyAgent,
  policyLookup,
  UpstreamAddressRefused,
} from "./network-policy.js";
export { upstreamAgent } from "./upstream-agent.js";
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
export { policyFetch } from "./upstream-auth/policy-fetch.js";
export type {
  PolicyFetch,
  UpstreamAuthorization,
  UpstreamTokenAnswer,
  UpstreamTokenRequest,
} from "./upstream-auth/upstream-authorization.js";
export { TOOLS_PAGE_SIZE, toolListPage } from "./tool-list-page.js";
export {
  callUpstream,
  type UpstreamCall,
  UpstreamFailure,
  type UpstreamLimits,
  type UpstreamOutcome,
} from "./upstream-client.js";
export { outputSchemaOf, promptEntry, resourceEntry, toolEntry } from "./wire/list-entries.js";
