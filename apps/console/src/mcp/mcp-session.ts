// A minimal MCP client over Streamable HTTP for "try a tool": initialize, tools/list and tools/call against
// the service's real /mcp/{serverId} endpoint with a server token. These are MCP's JSON-RPC messages (the
// MCP specification describes them, not the management API's document), so they are not in @mcpsm/client.
// An answer may come as JSON or as an SSE stream holding the one response.

const PROTOCOL_VERSION = "2025-11-25";

export interface McpTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
}

export interface McpCallResult {
  readonly content: ReadonlyArray<{ type: string; text?: string }>;
  readonly isError?: boolean;
  readonly structuredContent?: unknown;
}

/** An MCP error answer (JSON-RPC error or an HTTP failure). */
export class McpError extends Error {}

/** One tools/call as it happened: the JSON-RPC request sent, the HTTP status, the time to the full answer. */
export interface McpCallTrace {
  readonly request: object;
  readonly status: number;
  readonly milliseconds: number;
  readonly result?: McpCallResult;
  readonly error?: string;
}

const readAnswer = async (response: Response): Promise<unknown> => {
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text();
  if (!response.ok) throw new McpError(`the MCP endpoint answered ${response.status}: ${text.slice(0, 300)}`);
  if (type.includes("text/event-stream")) {
    const data = text
      .split(/\r?\n\r?\n/)
      .flatMap((event) =>
        event
          .split(/\r?\n/)
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).trim()),
      )
      .filter((d) => d !== "");
    const last = data[data.length - 1];
    if (last === undefined) throw new McpError("the MCP endpoint sent no message");
    return JSON.parse(last);
  }
  return text === "" ? undefined : JSON.parse(text);
};

/** One MCP session with a server (opened lazily by the first request). */
export const mcpSession = (serverId: string, token: string) => {
  const url = `${window.location.origin}/mcp/${encodeURIComponent(serverId)}`;
  let sessionId: string | null = null;
  let nextId = 1;
  let opened: Promise<void> | undefined;

  const post = async (body: object): Promise<Response> =>
    fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${token}`,
        "MCP-Protocol-Version": PROTOCOL_VERSION,
        ...(sessionId === null ? {} : { "Mcp-Session-Id": sessionId }),
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...body }),
    });

  const request = async (method: string, params: object): Promise<unknown> => {
    const answer = (await readAnswer(await post({ id: nextId++, method, params }))) as {
      result?: unknown;
      error?: { message: string };
    };
    if (answer?.error !== undefined) throw new McpError(answer.error.message);
    return answer?.result;
  };

  const open = () =>
    (opened ??= (async () => {
      const response = await post({
        id: nextId++,
        method: "initialize",
        params: {
          protocolVersion: PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: "mcpsm-console", version: "1" },
        },
      });
      sessionId = response.headers.get("Mcp-Session-Id");
      await readAnswer(response);
      const note = await post({ method: "notifications/initialized" });
      await note.text();
    })());

  return {
    /** Every tool of the server (following nextCursor). */
    listTools: async (): Promise<ReadonlyArray<McpTool>> => {
      await open();
      const tools: Array<McpTool> = [];
      let cursor: string | undefined;
      do {
        const page = (await request("tools/list", cursor === undefined ? {} : { cursor })) as {
          tools: Array<McpTool>;
          nextCursor?: string;
        };
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined && cursor !== "");
      return tools;
    },
    /** Calls one tool with its arguments. */
    callTool: async (name: string, args: Record<string, unknown>): Promise<McpCallResult> => {
      await open();
      return (await request("tools/call", { name, arguments: args })) as McpCallResult;
    },
    /** Calls one tool and reports the request sent, the status and the latency along with the answer. */
    traceCall: async (name: string, args: Record<string, unknown>): Promise<McpCallTrace> => {
      await open();
      const message = { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: args } };
      const started = performance.now();
      const response = await post(message);
      let status = response.status;
      try {
        const answer = (await readAnswer(response)) as { result?: McpCallResult; error?: { message: string } };
        const milliseconds = performance.now() - started;
        if (answer?.error !== undefined) return { request: message, status, milliseconds, error: answer.error.message };
        return {
          request: message,
          status,
          milliseconds,
          ...(answer?.result === undefined ? {} : { result: answer.result }),
        };
      } catch (e) {
        status = response.status;
        return {
          request: message,
          status,
          milliseconds: performance.now() - started,
          error: e instanceof Error ? e.message : String(e),
        };
      }
    },
  };
};
