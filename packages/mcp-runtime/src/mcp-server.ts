import { NotFound } from "@mcpsm/domain/errors";
import { type McpCaller, renderPrompt } from "@mcpsm/domain/mcp";
import { UpstreamFailure } from "@mcpsm/upstream-http";
import {
  type CallToolResult,
  type GetPromptResult,
  type InputRequiredResult,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { Cause, Either, Exit } from "effect";
import { type CallRecording, recordCall } from "./calls/call-log.js";

import { APPROVAL_KEY, approvalGate } from "./calls/approval-gate.js";
import { runToolCall } from "./calls/call-tool.js";
import { type ConsentChannel, ConsentRequired, consentAnswer } from "./calls/consent.js";
import { readResource } from "./calls/read-resource.js";
import type { UpstreamServices } from "./calls/upstream-services.js";
import type { CompiledServer, CompiledTool } from "./compiled-server.js";
import { guarded, rpcFailure, toolFailure } from "./error-mapping.js";
import type { UpstreamObserver } from "./instrumentation.js";
import { discoveryToolCall, discoveryToolList } from "./tool-discovery.js";
import { toolListPage } from "./tool-list-page.js";
import { listCacheHints } from "./list-cache-hints.js";
import { TASKS_EXTENSION } from "./long-running/answer-accepted.js";
import { longRunningCallOf, registerTaskMethods } from "./long-running/task-methods.js";

// One MCP server instance per HTTP exchange (the SDK's stateless model), built from a compiled server.
// Building it only wires handlers to data compiled earlier; the work of each method is in `calls/`.

const noError = () => undefined;

/** A fresh low-level MCP server answering from `compiled` (one per HTTP exchange). */
export const buildMcpServer = (
  services: UpstreamServices,
  compiled: CompiledServer,
  caller: string,
  principal: McpCaller,
  channel: ConsentChannel = { era: "modern", urlElicitation: () => false },
): Server => {
  const tasks = channel.era === "modern" ? services.longRunning?.tasks : undefined;
  const server = new Server(compiled.serverInfo, {
    capabilities: {
      tools: {},
      prompts: {},
      resources: {},
      completions: {},
      ...(tasks !== undefined ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
    },
    ...(compiled.instructions !== "" ? { instructions: compiled.instructions } : {}),
    cacheHints: listCacheHints(compiled.listTtlMs),
  });
  const { log, instrumentation } = services;
  /** Runs a handler as one observed operation: a throw is its error, an answer none. */
  const observed = <T>(method: string, run: (observe: UpstreamObserver) => T | Promise<T>) =>
    instrumentation.operation({ method, serverId: compiled.id }, async (observe) => run(observe), noError);
  /** The one way a tool runs, for tools/call and for useTool alike. */
  const runTool = async (
    observe: UpstreamObserver,
    tool: CompiledTool,
    args: unknown,
    ctx: ServerContext,
    recording: CallRecording | undefined,
  ): Promise<CallToolResult | InputRequiredResult> => {
    if (tool.approval) {
      const gate = await approvalGate(services, compiled, principal, tool, args);
      if (gate.kind === "answer") return gate.result;
      if (gate.kind === "ask")
        return consentAnswer(
          channel,
          ctx,
          gate.approval,
          undefined,
          "approve it, then call the tool again",
          APPROVAL_KEY,
        );
    }
    const result = await runToolCall(services, observe, compiled, caller, principal, tool, args, {
      incoming: ctx.http?.req?.headers,
      id: ctx.mcpReq.id,
      signal: ctx.mcpReq.signal,
      ...longRunningCallOf(ctx, channel.era, caller),
      tokens: recording?.tokens,
    });
    if (result instanceof ConsentRequired) return consentAnswer(channel, ctx, result.consent);
    // A task handle (docs/api-rules.md §22) goes out as the tools/call result: the SDK's result schema is loose.
    return result as CallToolResult;
  };
  // Label values stay bounded: the name of a tool the server answers to, else none.
  const discoveryNames = new Set(compiled.discovery ? discoveryToolList(compiled).map((t) => t.name) : []);
  const toolNameOf = (name: string) =>
    compiled.discovery ? (discoveryNames.has(name) ? name : undefined) : compiled.tools.get(name)?.row.name;
  server.setRequestHandler("tools/list", (request) =>
    observed("tools/list", () => {
      if (compiled.discovery) return { tools: discoveryToolList(compiled) };
      const page = toolListPage(compiled.toolList, request.params?.cursor);
      if (Either.isLeft(page)) throw rpcFailure(Cause.fail(page.left), log, "tools/list");
      return page.right;
    }),
  );
  server.setRequestHandler(
    "tools/call",
    guarded(log, "tools/call", (request, ctx) => {
      const recording = recordCall(
        services.callLog,
        compiled,
        principal,
        channel.era,
        request.params.name,
        request.params.arguments,
      );
      const ran = instrumentation.operation(
        { method: "tools/call", toolName: toolNameOf(request.params.name), serverId: compiled.id },
        async (observed) => {
          const observe = recording?.observe(observed) ?? observed;
          const discovery = compiled.discovery
            ? discoveryToolCall(compiled, request.params.name, request.params.arguments)
            : undefined;
          if (discovery !== undefined) {
            if (Either.isLeft(discovery)) return toolFailure(Cause.fail(discovery.left), log);
            const answer = discovery.right;
            if (answer.kind === "result") return answer.result;
            recording?.ran(answer.tool.row.name);
            return runTool(observe, answer.tool, answer.arguments, ctx, recording);
          }
          const tool = compiled.tools.get(request.params.name);
          if (tool === undefined)
            throw rpcFailure(Cause.fail(new NotFound({ kind: "tool", id: request.params.name })), log, "tools/call");
          return runTool(observe, tool, request.params.arguments, ctx, recording);
        },
        (result) => ("isError" in result && result.isError === true ? "tool_error" : undefined),
      );
      return recording === undefined
        ? ran
        : ran.then(
            (result) => {
              recording.finish(result);
              return result;
            },
            (error: unknown) => {
              recording.fail(error);
              throw error;
            },
          );
    }),
  );
  if (tasks !== undefined) registerTaskMethods(server, tasks, caller);
  server.setRequestHandler("prompts/list", () =>
    observed("prompts/list", () => ({ prompts: [...compiled.promptList] })),
  );
  server.setRequestHandler(
    "prompts/get",
    guarded(log, "prompts/get", (request) =>
      observed("prompts/get", (): GetPromptResult => {
        const prompt = compiled.prompts.get(request.params.name);
        if (prompt === undefined)
          throw rpcFailure(Cause.fail(new NotFound({ kind: "prompt", id: request.params.name })), log, "prompts/get");
        const rendered = renderPrompt(prompt, request.params.arguments ?? {});
        if (Either.isLeft(rendered)) throw rpcFailure(Cause.fail(rendered.left), log, "prompts/get");
        return {
          ...(prompt.description !== "" ? { description: prompt.description } : {}),
          messages: rendered.right.map((m) => ({
            role: m.role,
            content: { type: "text" as const, text: m.content.text },
          })),
        };
      }),
    ),
  );
  // Prompt arguments are free text: there is nothing to complete, so completion answers with no values.
  server.setRequestHandler("completion/complete", () =>
    observed("completion/complete", () => ({ completion: { values: [], hasMore: false } })),
  );
  server.setRequestHandler("resources/list", () =>
    observed("resources/list", () => ({ resources: [...compiled.resourceList] })),
  );
  // Resources are concrete URLs; no template is offered, but the method the capability implies answers.
  server.setRequestHandler("resources/templates/list", () =>
    observed("resources/templates/list", () => ({ resourceTemplates: [] })),
  );
  // A 2025-era cancellation comes in a request of its own: abort the caller's call it names, if still running.
  server.setNotificationHandler("notifications/cancelled", (notification) => {
    const { requestId, reason } = notification.params;
    if (requestId !== undefined) services.inFlight.cancel(caller, requestId, reason);
  });
  server.setRequestHandler(
    "resources/read",
    guarded(log, "resources/read", (request, ctx) =>
      observed("resources/read", async (observe) => {
        const resource = compiled.resources.get(request.params.uri);
        if (resource === undefined)
          throw rpcFailure(
            Cause.fail(new NotFound({ kind: "resource", id: request.params.uri })),
            log,
            "resources/read",
          );
        const exit = await services.runner.runPromiseExit(
          readResource(services, observe, compiled, resource, ctx, principal),
        );
        if (Exit.isFailure(exit)) throw rpcFailure(exit.cause, log, "resources/read");
        if (!(exit.value instanceof ConsentRequired)) return exit.value;
        return consentAnswer(
          channel,
          ctx,
          exit.value.consent,
          (text): never => {
            throw rpcFailure(
              Cause.fail(new UpstreamFailure({ kind: "refused", message: text })),
              log,
              "resources/read",
            );
          },
          "read the resource again",
        );
      }),
    ),
  );
  return server;
};
