import { approvalForCall, type CallApproval, type McpCaller, withPinnedArguments } from "@mcpsm/domain/mcp";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { Exit } from "effect";
import type { CompiledServer, CompiledTool } from "../compiled-server.js";
import { toolFailure } from "../error-mapping.js";
import type { ConsentNeeded } from "./consent.js";
import { errorResult } from "./tool-result.js";
import type { UpstreamServices } from "./upstream-services.js";

// docs/api-rules.md §20: a tool call that needs a person's approval runs only once an approval of this
// caller for these exact arguments was given; otherwise the caller is sent to the approval page, in its era's
// URL elicitation (as for upstream consent, §13), and retries.

/** The key of the approval's URL elicitation in a 2026-07-28 input-required result. */
export const APPROVAL_KEY = "tool_call_approval";

/** What a call that needs approval does: run, answer now (denied, or a failure), or ask. */
export type ApprovalGate =
  | { readonly kind: "run" }
  | { readonly kind: "answer"; readonly result: CallToolResult }
  | { readonly kind: "ask"; readonly approval: ConsentNeeded };

/** Whether the call of `tool` with `args` by `principal` may run now. */
export const approvalGate = async (
  services: UpstreamServices,
  compiled: CompiledServer,
  principal: McpCaller,
  tool: CompiledTool,
  args: unknown,
): Promise<ApprovalGate> => {
  const exit = await services.runner.runPromiseExit(
    approvalForCall({
      tenant: compiled.tenant,
      serverId: compiled.id,
      toolId: tool.row.id,
      toolName: tool.row.name,
      caller: principal,
      arguments: withPinnedArguments(tool.fixedArgs, args),
    }),
  );
  if (Exit.isFailure(exit)) return { kind: "answer", result: toolFailure(exit.cause, services.log) };
  const state: CallApproval = exit.value as CallApproval;
  if (state.kind === "approved") return { kind: "run" };
  if (state.kind === "denied")
    return { kind: "answer", result: errorResult(`This call of '${tool.row.name}' was denied by an approver.`) };
  if (state.created) services.instrumentation.approvalRequested?.();
  return {
    kind: "ask",
    approval: {
      kind: "consent",
      message: `A person must approve this call of '${tool.row.name}' with these arguments first`,
      url: services.approvalUrl?.(state.id) ?? `/approvals/${state.id}`,
    },
  };
};
