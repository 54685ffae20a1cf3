import type { lookup } from "node:dns";
import type { Agent } from "undici";

import { networkPolicy, policyAgent } from "./network-policy.js";

/**
 * The agent of outbound calls under the upstream settings: connections checked against
 * `upstreamAllowedNetworks`, a connect timeout within the upstream deadline. One per process serves every
 * caller that goes out under that policy (MCP upstream calls, token endpoints, import.url, git pushes).
 */
export const upstreamAgent = (
  settings: { readonly upstreamAllowedNetworks: ReadonlyArray<string>; readonly upstreamTimeoutMs: number },
  resolve?: typeof lookup,
): Agent =>
  policyAgent({
    policy: networkPolicy(settings.upstreamAllowedNetworks),
    ...(resolve ? { resolve } : {}),
    connectTimeoutMs: Math.min(10_000, settings.upstreamTimeoutMs),
  });
