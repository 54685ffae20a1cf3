import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/harness.js";
import { leakedIn } from "./support/planted-secrets.js";
import { createProvider, createServer as createMcpServer, createToken, createTool } from "./support/records.js";

// docs/api-rules.md §18, traces: with an OTLP/HTTP endpoint configured (here a receiver this test runs on
// loopback, decoding the exporter's OTLP JSON), one tools/call is one trace: the HTTP request's server span
// (continuing the caller's traceparent) → the MCP operation → the upstream call, and the upstream receives
// a traceparent of that same trace naming the client span. No attribute holds a secret.

// biome-ignore lint/suspicious/noExplicitAny: OTLP JSON is read freely
type Json = any;
interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
}

const receiver = { server: undefined as Server | undefined, bodies: [] as Array<string> };
let upstream: Server;
const upstreamSaw: Array<string | undefined> = [];
let svc: TestService | undefined;

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });

/** Every span the receiver got, attributes flattened to plain values. */
const spans = (): Array<ReceivedSpan> =>
  receiver.bodies.flatMap((body) =>
    (JSON.parse(body).resourceSpans as Array<Json>).flatMap((rs) =>
      (rs.scopeSpans as Array<Json>).flatMap((ss) =>
        (ss.spans as Array<Json>).map((s) => ({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? "",
          name: s.name,
          kind: s.kind,
          attributes: Object.fromEntries(
            (s.attributes as Array<Json>).map((a) => [a.key, Object.values(a.value as object)[0]]),
          ),
        })),
      ),
    ),
  );

beforeAll(async () => {
  receiver.server = createServer(async (req, res) => {
    expect(req.url).toBe("/v1/traces");
    expect(req.headers["content-type"]).toMatch(/^application\/json/);
    receiver.bodies.push(await readBody(req));
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => receiver.server?.listen(0, "127.0.0.1", resolve));
  upstream = createServer((req, res) => {
    upstreamSaw.push(req.headers.traceparent as string | undefined);
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await svc?.close();
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  await new Promise<void>((resolve) => receiver.server?.close(() => resolve()));
});

describe("traces of a tools/call", () => {
  it("HTTP request → MCP operation → upstream call, one trace, traceparent sent upstream", async () => {
    svc = await startTestService({
      tracesUrl: `http://127.0.0.1:${(receiver.server!.address() as AddressInfo).port}/v1/traces`,
      mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] },
    });
    const alice = await svc.tenant("tracing");
    const provider = await createProvider(alice.api, {
      baseURL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    });
    await createTool(alice.api, provider.id, { name: "tracedTool", path: "/things" });
    const server = await createMcpServer(alice.api, { providers: [{ id: provider.id }] });
    const token = await createToken(alice.api, server.id);

    // The caller's own trace context: the service continues it.
    const traceId = randomBytes(16).toString("hex");
    const callerSpanId = randomBytes(8).toString("hex");
    const response = await fetch(`${svc.url}/mcp/${server.id}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token.value}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "tracedTool", arguments: {} },
      }),
    });
    expect(response.status, await response.text()).toBe(200);
    // Closing the service flushes the spans it still buffers to the receiver.
    await svc.close();
    svc = undefined;

    const trace = spans().filter((s) => s.traceId === traceId);
    const http = trace.find((s) => s.parentSpanId === callerSpanId);
    expect(http).toMatchObject({
      name: "POST /mcp/{serverId}",
      kind: 2,
      attributes: { "http.request.method": "POST", "http.route": "/mcp/{serverId}", "http.response.status_code": 200 },
    });
    const operation = trace.find((s) => s.parentSpanId === http?.spanId);
    expect(operation).toMatchObject({
      name: "tools/call tracedTool",
      attributes: { "mcp.method.name": "tools/call", "gen_ai.tool.name": "tracedTool" },
    });
    const call = trace.find((s) => s.parentSpanId === operation?.spanId);
    expect(call).toMatchObject({
      name: "GET",
      kind: 3,
      attributes: { "http.request.method": "GET", "server.address": "127.0.0.1", "http.response.status_code": 200 },
    });
    expect(trace).toHaveLength(3);
    expect(upstreamSaw).toEqual([`00-${traceId}-${call?.spanId}-01`]);

    // Management requests are traced too, each a trace of its own when the caller sent no traceparent.
    const roots = spans().filter((s) => s.parentSpanId === "" && s.name.startsWith("POST /providers"));
    expect(roots.length).toBeGreaterThan(0);
    // No attribute (or anything else exported) holds a token, secret or value the suite sent.
    expect(leakedIn(receiver.bodies.join("\n"))).toEqual([]);
    expect(receiver.bodies.join("\n")).not.toContain(token.value);
  });
});
