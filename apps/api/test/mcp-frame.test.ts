import { Writable } from "node:stream";
import type { Middleware } from "koa";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { type AppDeps, createRequestHandler } from "../src/app.js";
import { mcpRequestNoting } from "../src/http/mcp-request-note.js";
import { createServiceMetrics } from "../src/operations/metrics.js";
import { createRateLimiter, type RateLimiter } from "../src/security/rate-limit.js";
import { listenOnLoopback, type Loopback } from "./support/loopback.js";

// The MCP endpoint's frame (src/http/mcp-frame.ts) hands `/mcp/{serverId}` requests to the runtime without the
// middleware stack. Each case runs one world twice, the frame on (as the service wires it) and off (every
// request through the stack), and compares what callers get, the log lines, the request metrics and the
// budgets drawn. The runtime is a stub that notes its operation (as the real one does) and writes an answer.

/** Headers that differ between any two answers (the two worlds' rate-limit windows began at different times). */
const VOLATILE = new Set(["date", "x-request-id", "keep-alive", "ratelimit-reset"]);
const MCP_PATH = /^\/mcp\/([^/]+)\/?$/;

interface World {
  readonly api: Loopback;
  /** Requests the stack's outermost middleware saw. */
  readonly stacked: { count: number };
  readonly drawn: { address: number; tenant: number };
  /** The log lines written, parsed. */
  readonly lines: Array<Record<string, unknown>>;
  /** The request metrics' sample counts, by label set. */
  readonly counts: () => Promise<string>;
}

const worlds: Array<World> = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.api.close();
});

/**
 * The stub runtime: notes a tools/list (or fails when asked to), then answers with the request's path, the
 * frame's headers first (as McpRuntime.handleNode sends them).
 */
const handleNode: NonNullable<AppDeps["mcp"]>["handleNode"] = async (req, res, frame) => {
  if (req.headers["x-fail"] === "1") throw new Error("escaped the runtime");
  await mcpRequestNoting.operation(
    { method: "tools/list", serverId: "srv" },
    async () => undefined,
    () => undefined,
  );
  for (let i = 0; frame !== undefined && i < frame.length; i += 2)
    res.setHeader(frame[i] as string, frame[i + 1] as string);
  res.writeHead(200, { "content-type": "application/json", "ratelimit-remaining": "7" });
  res.end(JSON.stringify({ url: req.url }));
};

const start = async (frame: boolean, rule = { points: 1_000, burst: 0, windowSeconds: 60 }): Promise<World> => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString("utf8")));
      done();
    },
  });
  const logger = pino({ level: "info" }, sink);
  const drawn = { address: 0, tenant: 0 };
  const limiter = createRateLimiter({ enabled: true, keyPrefix: "frame", address: rule, tenant: rule }, logger);
  const counted: RateLimiter = {
    ...(limiter as RateLimiter),
    consume: (scope, key) => {
      drawn[scope] += 1;
      return (limiter as RateLimiter).consume(scope, key);
    },
  };
  const metrics = createServiceMetrics();
  const stacked = { count: 0 };
  const counting: Middleware = (_ctx, next) => {
    stacked.count += 1;
    return next();
  };
  const deps: AppDeps = {
    runtime: {} as AppDeps["runtime"],
    verifier: { verify: async () => undefined as never, verified: () => undefined },
    logger,
    ready: async () => true,
    rateLimiter: counted,
    mcp: { matches: (path) => MCP_PATH.test(path), handleNode },
    observe: [counting, metrics.httpMiddleware],
    ...(frame ? { observeKeptAnswer: metrics.observeRequest } : {}),
  };
  const counts = async () =>
    (await metrics.registry.getSingleMetricAsString("http_server_request_duration_seconds"))
      .split("\n")
      .filter((line) => line.includes("_count"))
      .join("\n");
  const world = { api: await listenOnLoopback(createRequestHandler(deps)), stacked, drawn, lines, counts };
  worlds.push(world);
  return world;
};

const post = async (world: World, path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${world.api.url}${path}`, { method: "POST", headers, body: "{}" });
  return {
    status: res.status,
    text: await res.text(),
    headers: [...res.headers].filter(([name]) => !VOLATILE.has(name)),
    requestId: res.headers.get("x-request-id"),
  };
};

/** A log line without what differs between two runs (its time, process, duration and a generated id). */
const stable = ({ time: _t, pid: _p, hostname: _h, durationMs, requestId, ...line }: Record<string, unknown>) => ({
  ...line,
  durationMs: typeof durationMs,
  requestId: requestId === "given-1" ? requestId : typeof requestId,
});

describe("the MCP endpoint's frame", () => {
  it("answers as the stack does: headers, body, log line with the MCP method, metrics", async () => {
    const [framed, stackOnly] = [await start(true), await start(false)];
    for (const [path, headers] of [
      ["/mcp/srv_1", { "x-request-id": "given-1" }],
      ["/mcp/srv_1?x=1", {}],
      ["/mcp/srv_1/", {}],
    ] as const) {
      const [fromFrame, fromStack] = [await post(framed, path, headers), await post(stackOnly, path, headers)];
      expect(fromFrame).toEqual({ ...fromStack, requestId: fromFrame.requestId });
      expect(fromFrame.status).toBe(200);
    }
    expect(framed.lines.map(stable)).toEqual(stackOnly.lines.map(stable));
    expect(framed.lines[0]).toMatchObject({ requestId: "given-1", mcpMethod: "tools/list", status: 200 });
    expect(await framed.counts()).toBe(await stackOnly.counts());
    expect(await framed.counts()).toContain('http_route="/mcp/{serverId}"');
    expect(framed.stacked.count).toBe(0);
    expect(framed.drawn).toEqual(stackOnly.drawn);
  });

  it("leaves other paths to the stack, with the same answers", async () => {
    const [framed, stackOnly] = [await start(true), await start(false)];
    for (const path of ["/mcp/a/b", "/mcpx", "/healthz"]) {
      const [fromFrame, fromStack] = [await post(framed, path), await post(stackOnly, path)];
      expect({ ...fromFrame, text: "" }).toEqual({ ...fromStack, text: "", requestId: fromFrame.requestId });
    }
    expect(framed.stacked.count).toBe(3);
  });

  it("draws the address budget once, and a refusal is the stack's 429", async () => {
    const rule = { points: 2, burst: 0, windowSeconds: 60 };
    const [framed, stackOnly] = [await start(true, rule), await start(false, rule)];
    const answers = async (world: World) => {
      const seen: Array<[number, string]> = [];
      for (let i = 0; i < 3; i++) {
        const { status, headers } = await post(world, "/mcp/srv_1");
        seen.push([status, headers.find(([name]) => name === "ratelimit-remaining")?.[1] ?? ""]);
      }
      return seen;
    };
    const [fromFrame, fromStack] = [await answers(framed), await answers(stackOnly)];
    expect(fromFrame).toEqual([
      [200, "7"],
      [200, "7"],
      [429, "0"],
    ]);
    expect(fromFrame).toEqual(fromStack);
    expect(framed.drawn).toEqual({ address: 3, tenant: 0 });
    expect(framed.stacked.count).toBe(1);
    expect(framed.lines.map(stable)).toEqual(stackOnly.lines.map(stable));
  });

  it("logs a failure that escaped the runtime and closes the connection", async () => {
    const framed = await start(true);
    await expect(post(framed, "/mcp/srv_1", { "x-fail": "1" })).rejects.toThrow();
    expect(framed.lines.map((line) => line.msg)).toEqual(["unhandled error", "request"]);
  });
});
