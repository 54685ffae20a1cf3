import { type McpCaller, resolveVariables } from "@mcpsm/domain/mcp";
import { Exit } from "effect";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { CompiledServer, CompiledTool } from "../compiled-server.js";
import type { PreparedCall } from "../exchange/fast-lane.js";
import { guarded } from "../error-mapping.js";
import { recordCall } from "./call-log.js";
import { runToolCall } from "./call-tool.js";
import { ConsentRequired } from "./consent.js";
import { isTaskResult } from "../long-running/answer-accepted.js";
import type { UpstreamServices } from "./upstream-services.js";

// The fast lane's tools/call (exchange/fast-lane.ts): the SDK handler's work without the SDK.

/**
 * True when a tool runs without the SDK's request context: no forwarded headers, no upstream OAuth token, no
 * approval to ask for (its elicitation needs the caller's declared capabilities).
 */
export const runsWithoutRequestContext = (services: UpstreamServices, compiled: CompiledServer, tool: CompiledTool) =>
  !compiled.forwardRequestHeaders &&
  !tool.approval &&
  (tool.provider.oauth2Config === null || services.authFetch === undefined || services.authorization === undefined);

const NOTHING_READ: PreparedCall = {};

/**
 * The fast lane's read before it charges the tenant: the tool's header variables for this caller, which the
 * call then uses as the SDK path would have read them. Undefined when a per-caller variable has no value for
 * this caller (docs/api-rules.md §23): the person must be sent to a form, an answer only the SDK path gives
 * (its era's elicitation). Names the provider may not read, and failures, read nothing: the call reports them.
 */
export const prepareDirectCall = async (
  services: UpstreamServices,
  compiled: CompiledServer,
  principal: McpCaller,
  tool: CompiledTool,
): Promise<PreparedCall | undefined> => {
  // The names were worked out once, when the server was compiled.
  const names = tool.readsVariables;
  if (names.length === 0) return NOTHING_READ;
  const exit = await services.runner.runPromiseExit(resolveVariables(compiled.tenant, names, principal));
  if (Exit.isFailure(exit)) return NOTHING_READ;
  return exit.value.needed.length > 0 ? undefined : { known: exit.value.values };
};

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
  prepared: PreparedCall = NOTHING_READ,
  era: "modern" | "legacy" = "modern",
): Promise<
  | { readonly kind: "result"; readonly result: CallToolResult }
  | { readonly kind: "error"; readonly code: number; readonly message: string; readonly data?: unknown }
> => {
  const { log, instrumentation } = services;
  const recording = recordCall(services.callLog, compiled, principal, era, tool.row.name, args);
  try {
    const result = await guarded(log, "tools/call", () =>
      instrumentation.operation(
        { method: "tools/call", toolName: tool.row.name, serverId: compiled.id },
        async (observed) => {
          const observe = recording?.observe(observed) ?? observed;
          const result = await runToolCall(services, observe, compiled, caller, principal, tool, args, {
            incoming: undefined,
            id,
            signal,
            known: prepared.known,
            tokens: recording?.tokens,
          });
          if (result instanceof ConsentRequired) throw new Error("a consent reached the fast lane");
          if (isTaskResult(result)) throw new Error("a task reached the fast lane");
          return result;
        },
        (result) => (result.isError === true ? "tool_error" : undefined),
      ),
    )();
    recording?.finish(result);
    return { kind: "result", result };
  } catch (error) {
    recording?.fail(error);
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
