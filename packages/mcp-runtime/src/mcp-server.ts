import {
  forwardableHeaders,
  planUpstreamRequest,
  renderPrompt,
  resolveToolHeaders,
  type SecretCipher,
  type Storage,
} from "@mcpsm/domain";
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { type Effect, Exit } from "effect";
import type { Dispatcher } from "undici";
import { argumentProblems } from "./argument-validator.js";
import type { CompiledServer, CompiledTool } from "./compiled-server.js";
import { isJsonType, isTextualType } from "./media-type.js";
import { callUpstream, type UpstreamLimits, type UpstreamResponse } from "./upstream-client.js";

// One MCP server instance per HTTP exchange (the SDK's stateless model), built from a compiled server.
// Building it only wires handlers to data compiled earlier; nothing is read from the store here except the
// owner's variables when a tool's headers reference them.

/** Runs domain effects (the service's ManagedRuntime fits). */
export interface EffectRunner {
  readonly runPromiseExit: <A, E>(effect: Effect.Effect<A, E, Storage | SecretCipher>) => Promise<Exit.Exit<A, E>>;
}

export interface UpstreamServices {
  readonly runner: EffectRunner;
  readonly dispatcher: Dispatcher;
  readonly limits: UpstreamLimits;
  /** Sent as User-Agent when neither the tool nor a forwarded header sets one. */
  readonly userAgent: string;
}

const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: "text", text }] });

/** The upstream body as text: decoded when textual, else base64 with a note. */
const bodyText = (response: UpstreamResponse, limits: UpstreamLimits): string => {
  const text = isTextualType(response.contentType)
    ? response.body.toString("utf8")
    : `[${response.body.length} bytes of ${response.contentType}, base64-encoded]\n${response.body.toString("base64")}`;
  return response.truncated
    ? `${text}\n[truncated: the upstream response is larger than ${limits.maxResponseBytes} bytes]`
    : text;
};

/** A tool result from an upstream response: text always, `structuredContent` when the body is JSON. */
export const toolResultOf = (response: UpstreamResponse, limits: UpstreamLimits): CallToolResult => {
  const text = bodyText(response, limits);
  if (response.status < 200 || response.status > 299)
    return errorResult(
      `upstream answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}${text !== "" ? `\n${text}` : ""}`,
    );
  const result: CallToolResult = { content: [{ type: "text", text }] };
  if (!response.truncated && isJsonType(response.contentType) && response.body.length > 0) {
    try {
      const parsed: unknown = JSON.parse(response.body.toString("utf8"));
      result.structuredContent =
        typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
          ? (parsed as Record<string, unknown>)
          : { result: parsed };
    } catch {
      // Not valid JSON after all: the text content is the answer.
    }
  }
  return result;
};

/** The headers of the upstream request: forwarded ones (if enabled), defaults, then the tool's own. */
const upstreamHeaders = (
  compiled: CompiledServer,
  incoming: Headers | undefined,
  toolHeaders: ReadonlyArray<readonly [string, string]>,
  hasBody: boolean,
  userAgent: string,
) => {
  const headers = new Map<string, readonly [string, string]>();
  const put = (key: string, value: string) => headers.set(key.toLowerCase(), [key, value]);
  if (compiled.forwardRequestHeaders && incoming !== undefined)
    for (const [key, value] of forwardableHeaders(incoming.entries())) put(key, value);
  // The MCP transport's own media types describe the client's exchange with us, not the upstream one.
  if (compiled.forwardRequestHeaders) headers.delete("accept");
  if (!headers.has("user-agent")) put("User-Agent", userAgent);
  put("Accept", "application/json, */*;q=0.8");
  if (hasBody) put("Content-Type", "application/json");
  else headers.delete("content-type");
  for (const [key, value] of toolHeaders) put(key, value);
  return [...headers.values()];
};

const callTool = async (
  services: UpstreamServices,
  compiled: CompiledServer,
  tool: CompiledTool,
  args: unknown,
  ctx: ServerContext,
): Promise<CallToolResult> => {
  const problems = argumentProblems(tool.row, args);
  if (problems.length > 0) return errorResult(`invalid arguments:\n${problems.map((p) => `- ${p}`).join("\n")}`);
  const planned = planUpstreamRequest(tool.provider.baseURL, tool.row, (args ?? {}) as Record<string, unknown>);
  if (!planned.ok)
    return errorResult(`invalid arguments:\n${planned.problems.map((p) => `- ${p.path}: ${p.message}`).join("\n")}`);
  const resolved = await services.runner.runPromiseExit(
    resolveToolHeaders(compiled.tenant, tool.provider.secretPrefix, tool.row.headers),
  );
  if (Exit.isFailure(resolved)) return errorResult("the tool's header variables could not be read; try again later");
  if (!resolved.value.ok) return errorResult(resolved.value.message);
  const { plan } = planned;
  const outcome = await callUpstream(
    services.dispatcher,
    {
      method: plan.method,
      url: plan.url,
      headers: upstreamHeaders(
        compiled,
        ctx.http?.req?.headers,
        resolved.value.headers,
        plan.body !== undefined,
        services.userAgent,
      ),
      body: plan.body,
      signal: ctx.mcpReq.signal,
    },
    services.limits,
  );
  if (!outcome.ok) return errorResult(`upstream call failed: ${outcome.failure.message}`);
  return toolResultOf(outcome.response, services.limits);
};

const readResource = async (services: UpstreamServices, uri: string, mimeType: string, ctx: ServerContext) => {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new ProtocolError(ProtocolErrorCode.InternalError, `resource '${uri}' has no fetchable URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ProtocolError(ProtocolErrorCode.InternalError, `resource '${uri}' is not an http(s) URL`);
  const outcome = await callUpstream(
    services.dispatcher,
    {
      method: "GET",
      url,
      headers: [
        ["User-Agent", services.userAgent],
        ["Accept", mimeType || "*/*"],
      ],
      signal: ctx.mcpReq.signal,
    },
    services.limits,
  );
  if (!outcome.ok)
    throw new ProtocolError(ProtocolErrorCode.InternalError, `reading '${uri}' failed: ${outcome.failure.message}`);
  const { response } = outcome;
  if (response.status < 200 || response.status > 299)
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `reading '${uri}' failed: upstream answered HTTP ${response.status}`,
    );
  const type = mimeType || response.contentType;
  if (isTextualType(type))
    return {
      contents: [{ uri, ...(type ? { mimeType: type } : {}), text: bodyText(response, services.limits) }],
    };
  if (response.truncated)
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `reading '${uri}' failed: the resource is larger than ${services.limits.maxResponseBytes} bytes`,
    );
  return { contents: [{ uri, mimeType: type, blob: response.body.toString("base64") }] };
};

/** A fresh low-level MCP server answering from `compiled` (one per HTTP exchange). */
export const buildMcpServer = (services: UpstreamServices, compiled: CompiledServer): Server => {
  const server = new Server(
    { name: compiled.name, version: compiled.version },
    {
      capabilities: { tools: {}, prompts: {}, resources: {}, completions: {} },
      ...(compiled.instructions !== "" ? { instructions: compiled.instructions } : {}),
    },
  );
  server.setRequestHandler("tools/list", () => ({ tools: compiled.toolList as never }));
  server.setRequestHandler("tools/call", (request, ctx) => {
    const tool = compiled.tools.get(request.params.name);
    if (tool === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool '${request.params.name}'`);
    return callTool(services, compiled, tool, request.params.arguments, ctx);
  });
  server.setRequestHandler("prompts/list", () => ({ prompts: compiled.promptList as never }));
  server.setRequestHandler("prompts/get", (request) => {
    const prompt = compiled.prompts.get(request.params.name);
    if (prompt === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown prompt '${request.params.name}'`);
    const rendered = renderPrompt(prompt, request.params.arguments ?? {});
    if (!rendered.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, rendered.message);
    return {
      ...(prompt.description !== "" ? { description: prompt.description } : {}),
      messages: rendered.messages.map((m) => ({
        role: m.role,
        content: { type: "text" as const, text: m.content.text },
      })),
    };
  });
  // Prompt arguments are free text: there is nothing to complete, so completion answers with no values.
  server.setRequestHandler("completion/complete", () => ({ completion: { values: [], hasMore: false } }));
  server.setRequestHandler("resources/list", () => ({ resources: compiled.resourceList as never }));
  server.setRequestHandler("resources/read", (request, ctx) => {
    const resource = compiled.resources.get(request.params.uri);
    if (resource === undefined) throw new ResourceNotFoundError(request.params.uri);
    return readResource(services, resource.uri, resource.mimeType, ctx) as never;
  });
  return server;
};
