/**
 * @mcpsm/upstream-http: every outbound HTTP exchange of the service goes out under the upstream address policy
 * (docs/security.md): the policy and the agent that enforces it at connect time, the upstream client of tool
 * calls and resource reads, `policyFetch` for authorization servers and `import.url`, and the port types of
 * upstream authorization that @mcpsm/upstream-oauth implements and @mcpsm/mcp-runtime uses.
 */
export type { EffectRunner } from "./effect-runner.js";
export {
  type NetworkPolicy,
  networkPolicy,
  parseCidrs,
  policyAgent,
  policyLookup,
  refusedIn,
  UpstreamAddressRefused,
} from "./network-policy.js";
export { policyFetch } from "./policy-fetch.js";
export { upstreamAgent } from "./upstream-agent.js";
export type {
  PolicyFetch,
  UpstreamAuthorization,
  UpstreamTokenAnswer,
  UpstreamTokenRequest,
} from "./upstream-authorization.js";
export {
  callUpstream,
  type UpstreamCall,
  UpstreamFailure,
  type UpstreamLimits,
  type UpstreamOutcome,
  type UpstreamResponse,
} from "./upstream-client.js";
