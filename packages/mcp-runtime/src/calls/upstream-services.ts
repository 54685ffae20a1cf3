import type { EffectRunner, PolicyFetch, UpstreamAuthorization, UpstreamLimits } from "@mcpsm/upstream-http";
import type { Dispatcher } from "undici";
import type { McpLogger } from "../error-mapping.js";
import type { InFlightCalls } from "../exchange/in-flight-calls.js";
import type { McpInstrumentation } from "../instrumentation.js";
import type { LongRunning } from "../long-running/answer-accepted.js";
import type { McpCallLog } from "./call-log.js";

/** What a tool call or a resource read needs besides the compiled server: the runner, the agent, limits, observers. */
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
  /** Where each tools/call is handed when it ends (the tool-call log); none: not recorded. */
  readonly callLog?: McpCallLog | undefined;
  /** Running calls a client's `notifications/cancelled` may abort. */
  readonly inFlight: InFlightCalls;
  /** Access tokens for providers with `oauth2Config` (docs/api-rules.md §13); none: such tools go without. */
  readonly authorization?: UpstreamAuthorization | undefined;
  /** The public URL of the service page at `path` (`/credentials/{id}`, docs/api-rules.md §23). */
  readonly pageUrl: (path: string) => string;
  /** Outbound HTTP for authorization servers, under the same network policy and limits as upstream calls. */
  readonly authFetch?: PolicyFetch | undefined;
  /** The public URL of an approval's page (docs/api-rules.md §20). */
  readonly approvalUrl?: ((id: string) => string) | undefined;
  /** Follows upstream `202 Accepted` operations (docs/api-rules.md §22); none: a 202 is answered as it is. */
  readonly longRunning?: LongRunning | undefined;
}
