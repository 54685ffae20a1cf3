import {
  beginCallerValueForm,
  CALLER_VALUE_FORM_TTL_SECONDS,
  type CallerValueNeeded,
  type McpCaller,
} from "@mcpsm/domain/mcp";
import type { ProviderRow } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { ConsentRequired } from "./consent.js";
import { errorResult } from "./tool-result.js";
import type { UpstreamServices } from "./upstream-services.js";

// docs/api-rules.md §23: a call that needs a per-caller value the caller lacks asks for it as upstream consent
// does (§13): a URL elicitation in the caller's era, or the URL in text. The URL is the service's own form,
// `/credentials/{id}`; the value never passes through the client or the model.

/**
 * What a tool call answers when the caller must enter its own value of a variable first: a new form and the
 * consent-shaped answer that sends the person to it. A variable or server token deleted meanwhile answers a
 * tool error instead.
 */
export const askForCallerValue = (
  services: UpstreamServices,
  provider: ProviderRow,
  principal: McpCaller,
  needed: CallerValueNeeded,
) =>
  beginCallerValueForm({ variable: needed.variable, caller: principal, providerName: provider.name }).pipe(
    Effect.map((formId) => {
      services.instrumentation.callerValuePrompt?.();
      return new ConsentRequired({
        kind: "consent",
        url: services.pageUrl(`/credentials/${formId}`),
        message: `provider '${provider.name}' needs your own value of ${needed.variable.name}; enter it in the service's form (the link is valid for ${CALLER_VALUE_FORM_TTL_SECONDS / 60} minutes)`,
      });
    }),
    Effect.catchTag("ReferenceViolation", () =>
      Effect.succeed(errorResult(`the variable ${needed.variable.name} or your server token was just deleted`)),
    ),
  );
