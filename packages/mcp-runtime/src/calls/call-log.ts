import { type McpCaller, callPrincipal, maskArguments } from "@mcpsm/domain/mcp";
import type { ToolCallRow } from "@mcpsm/domain/storage";
import { Either } from "effect";
import { errorTypeOfThrown, type UpstreamObserver } from "../instrumentation.js";

// The tool-call log's side of the runtime (docs/api-rules.md §24): each tools/call, on the SDK path of both
// eras and on the fast lane, is handed to the service's call log as one entry when it ends. Handing it over
// must cost next to nothing: the service batches and stores entries off the request path.

/** A call as the runtime saw it; the service gives it an id. */
export type ToolCallEntry = Omit<ToolCallRow, "id">;

/** Where the runtime hands its calls (the service's batched writer). */
export interface McpCallLog {
  /** Takes one finished call; must not block or throw. */
  readonly record: (entry: ToolCallEntry) => void;
  /** Whether the server opted into argument capture (the arguments are then stored masked). */
  readonly capturesArguments: (serverId: string) => boolean;
}

/** The longest tool name the log keeps (a client may name anything). */
const MAX_TOOL_NAME = 256;

type Era = ToolCallRow["era"];

/** The characters of a result's text content: the size measured without serialising the result. */
const resultChars = (result: unknown): number => {
  const content = (result as { content?: unknown }).content;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const item of content) if (typeof item?.text === "string") chars += item.text.length;
  return chars;
};

/** One call being recorded: started when it arrives, handed over when it ends. */
export interface CallRecording {
  /** The upstream observer that also notes the upstream answer's status. */
  readonly observe: (observe: UpstreamObserver) => UpstreamObserver;
  /** The tool that actually ran (discovery's useTool names another). */
  readonly ran: (tool: string) => void;
  /** Response shaping's o200k_base count of the result before and after shaping (the metric's count). */
  readonly tokens: (before: number, after: number) => void;
  readonly finish: (result: unknown) => void;
  readonly fail: (error: unknown) => void;
}

/** Starts recording a tools/call of `tool` on `server`; undefined when the service keeps no call log. */
export const recordCall = (
  callLog: McpCallLog | undefined,
  server: { readonly id: string; readonly tenant: string },
  principal: McpCaller,
  era: Era,
  tool: string,
  args: unknown,
): CallRecording | undefined => {
  if (callLog === undefined) return undefined;
  const at = Date.now();
  const started = performance.now();
  let upstreamStatus = 0;
  let shapedBefore: number | undefined;
  let shapedAfter: number | null = null;
  let name = tool.length > MAX_TOOL_NAME ? tool.slice(0, MAX_TOOL_NAME) : tool;
  const captured = callLog.capturesArguments(server.id) ? maskArguments(args) : null;
  const hand = (status: ToolCallRow["status"], errorType: string, chars: number) => {
    const latencyMs = Math.round((performance.now() - started) * 1000) / 1000;
    callLog.record({
      tenant: server.tenant,
      serverId: server.id,
      at: new Date(at),
      tool: name,
      principal: callPrincipal(principal),
      era,
      status,
      errorType,
      upstreamStatus,
      latencyMs,
      resultChars: chars,
      // Shaping's count when it ran (2xx textual answers), else an estimate from the characters.
      tokensBefore: shapedBefore ?? Math.ceil(chars / 4),
      tokensAfter: shapedAfter,
      arguments: captured,
    });
  };
  return {
    observe: (observe) => async (exchange, run) => {
      const outcome = await observe(exchange, run);
      if (Either.isRight(outcome)) upstreamStatus = outcome.right.status;
      return outcome;
    },
    ran: (ranTool) => {
      name = ranTool;
    },
    tokens: (before, after) => {
      shapedBefore = before;
      shapedAfter = after;
    },
    finish: (result) => {
      const r = result as { isError?: unknown; content?: unknown };
      if (r.isError === true) hand("tool_error", "tool_error", resultChars(r));
      else if (r.content === undefined) hand("tool_error", "consent_required", 0);
      else hand("ok", "", resultChars(r));
    },
    fail: (error) => hand("error", errorTypeOfThrown(error), 0),
  };
};
