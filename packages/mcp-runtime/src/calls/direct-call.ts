import type { McpCaller } from "@mcpsm/domain/mcp";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { CompiledServer, CompiledTool } from "../compiled-server.js";
import { guarded } from "../error-mapping.js";
import { runToolCall } from "./call-tool.js";
import { ConsentRequired } from "./consent.js";
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
