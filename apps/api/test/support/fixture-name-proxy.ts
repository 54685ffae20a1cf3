import { type OutgoingHttpHeaders, request } from "node:http";
import { listenOnLoopback } from "./loopback.js";

/**
 * A local proxy between the conformance suite and one MCP endpoint, for scenarios that call fixture tools by
 * snake_case names (`slow_compute`) with flat arguments (`{seconds: 2}`). A configured tool's name is camelCase
 * (docs/api-rules.md §6) and its arguments come in parts (`{queryArgs: {...}}`), so the proxy only translates
 * that interface: a `tools/call` of a fixture name goes out under the tool's name (body and `Mcp-Name`) with
 * its arguments as `queryArgs`, and `tools/list` answers the fixture names back. Everything else — status
 * codes, headers, tasks, errors, notifications — is the service's, unchanged. It also adds the bearer token
 * (the suite cannot send one).
 */
export const startFixtureNameProxy = async (target: string, token: string, names: Readonly<Record<string, string>>) => {
  const toTool = new Map(Object.entries(names));
  const toFixture = new Map(Object.entries(names).map(([fixture, tool]) => [tool, fixture]));
  const upstream = new URL(target);

  /** The request as the service must read it (undefined: not JSON, sent as it came). */
  const translatedRequest = (body: Buffer): unknown => {
    let message: unknown;
    try {
      message = JSON.parse(body.toString("utf8"));
    } catch {
      return undefined;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) return message;
    const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
    if (method !== "tools/call" || typeof params?.name !== "string") return message;
    const tool = toTool.get(params.name);
    if (tool === undefined) return message;
    const args = params.arguments;
    const hasArgs = typeof args === "object" && args !== null && Object.keys(args).length > 0;
    return { ...message, params: { ...params, name: tool, arguments: hasArgs ? { queryArgs: args } : {} } };
  };

  /** A JSON-RPC message as the suite must read it: fixture names in tool lists. */
  const translatedAnswer = (message: unknown): unknown => {
    if (typeof message !== "object" || message === null) return message;
    const result = (message as { result?: { tools?: unknown } }).result;
    if (!Array.isArray(result?.tools)) return message;
    return {
      ...message,
      result: {
        ...result,
        tools: result.tools.map((tool: { name?: string }) => ({
          ...tool,
          name: toFixture.get(tool.name ?? "") ?? tool.name,
        })),
      },
    };
  };

  const translatedBody = (contentType: string, body: string): string => {
    try {
      if (contentType.includes("application/json")) return JSON.stringify(translatedAnswer(JSON.parse(body)));
      if (contentType.includes("text/event-stream"))
        return body.replace(/^data: ?(.*)$/gm, (_line, data: string) => {
          try {
            return `data: ${JSON.stringify(translatedAnswer(JSON.parse(data)))}`;
          } catch {
            return `data: ${data}`;
          }
        });
    } catch {
      // Not JSON after all: answered as it came.
    }
    return body;
  };

  const listening = await listenOnLoopback((req, res) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const message = req.method === "POST" ? translatedRequest(body) : undefined;
      const sent = message === undefined ? body : Buffer.from(JSON.stringify(message));
      const name = req.headers["mcp-name"];
      const tool =
        req.headers["mcp-method"] === "tools/call" && typeof name === "string" ? toTool.get(name) : undefined;
      const headers: OutgoingHttpHeaders = {
        ...req.headers,
        authorization: `Bearer ${token}`,
        "content-length": String(sent.length),
        ...(tool === undefined ? {} : { "mcp-name": tool }),
      };
      const forwarded = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (answer) => {
          const contentType = String(answer.headers["content-type"] ?? "");
          // Only POST answers are read whole (a call's stream ends with its result); a GET stream is piped.
          if (req.method !== "POST" || !/json|event-stream/.test(contentType)) {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            return;
          }
          const parts: Array<Buffer> = [];
          answer.on("data", (chunk: Buffer) => parts.push(chunk));
          answer.on("end", () => {
            const text = translatedBody(contentType, Buffer.concat(parts).toString("utf8"));
            const { "content-length": _length, "transfer-encoding": _encoding, ...rest } = answer.headers;
            res.writeHead(answer.statusCode ?? 502, { ...rest, "content-length": Buffer.byteLength(text) });
            res.end(text);
          });
        },
      );
      forwarded.on("error", () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      forwarded.end(sent);
    });
  });
  return {
    url: listening.url,
    close: listening.close,
  };
};
