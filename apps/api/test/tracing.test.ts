import type { IncomingMessage } from "node:http";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/harness.js";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { ConfigProvider, Effect } from "effect";
import { operationsConfig } from "../src/config/operations-config.js";
import { describeStatement } from "../src/operations/sql-statement.js";
import { leakedIn } from "./support/planted-secrets.js";
import {
  createProvider,
  createServer as createMcpServer,
  createToken,
  createTool,
  createVariable,
} from "./support/records.js";

// docs/api-rules.md §18, traces: with an OTLP/HTTP endpoint configured (here a receiver this test runs on
// loopback, decoding the exporter's OTLP JSON), one tools/call is one trace: the HTTP request's server span
// (continuing the caller's traceparent) → the MCP operation → the upstream call, and the upstream receives
// a traceparent of that same trace naming the client span. On PostgreSQL every SQL statement a request sends
// is a client span under the request's span (or its MCP operation's), named and described by the database
// semantic conventions, its text with placeholders only. No attribute holds a secret.

/** The suite's store (test-storage.ts): only PostgreSQL sends statements. */
const onPostgres = process.env.API_TEST_STORAGE === "postgres";

// biome-ignore lint/suspicious/noExplicitAny: OTLP JSON is read freely
type Json = any;
interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly startNanos: bigint;
  readonly attributes: Record<string, unknown>;
}
const isStatement = (s: ReceivedSpan) => s.attributes["db.system.name"] !== undefined;

const receiver = { listening: undefined as Loopback | undefined, bodies: [] as Array<string> };
let upstream: Loopback;
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
          startNanos: BigInt(s.startTimeUnixNano),
          attributes: Object.fromEntries(
            (s.attributes as Array<Json>).map((a) => [a.key, Object.values(a.value as object)[0]]),
          ),
        })),
      ),
    ),
  );

beforeAll(async () => {
  receiver.listening = await listenOnLoopback(async (req, res) => {
    expect(req.url).toBe("/v1/traces");
    expect(req.headers["content-type"]).toMatch(/^application\/json/);
    receiver.bodies.push(await readBody(req));
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  upstream = await listenOnLoopback((req, res) => {
    upstreamSaw.push(req.headers.traceparent as string | undefined);
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
});
afterAll(async () => {
  await svc?.close();
  await upstream?.close();
  await receiver.listening?.close();
});

describe("traces of a tools/call", () => {
  it("HTTP request → MCP operation → upstream call, one trace, traceparent sent upstream", async () => {
    svc = await startTestService({
      tracesUrl: `${receiver.listening?.url}/v1/traces`,
      mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] },
    });
    const alice = await svc.tenant("tracing");
    const provider = await createProvider(alice.api, {
      baseURL: upstream.url,
    });
    await createTool(alice.api, provider.id, { name: "tracedTool", path: "/things" });
    const server = await createMcpServer(alice.api, { providers: [{ id: provider.id }] });
    const token = await createToken(alice.api, server.id);
    // A secret the store receives as a statement parameter: it must not be in any span.
    await createVariable(alice.api, { type: "SECRET" });

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
    // One management write under a caller's trace context.
    const writeTraceId = randomBytes(16).toString("hex");
    const writeCallerSpanId = randomBytes(8).toString("hex");
    const write = await alice.api.patch(
      `/servers/${server.id}`,
      { server: { description: "traced write" } },
      { traceparent: `00-${writeTraceId}-${writeCallerSpanId}-01` },
    );
    expect(write.status, write.text).toBe(200);
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
    const operation = trace.find((s) => s.parentSpanId === http?.spanId && !isStatement(s));
    expect(operation).toMatchObject({
      name: "tools/call tracedTool",
      attributes: { "mcp.method.name": "tools/call", "gen_ai.tool.name": "tracedTool" },
    });
    const call = trace.find((s) => s.parentSpanId === operation?.spanId && !isStatement(s));
    expect(call).toMatchObject({
      name: "GET",
      kind: 3,
      attributes: { "http.request.method": "GET", "server.address": "127.0.0.1", "http.response.status_code": 200 },
    });
    expect(trace.filter((s) => !isStatement(s))).toHaveLength(3);
    expect(upstreamSaw).toEqual([`00-${traceId}-${call?.spanId}-01`]);

    // The statements of the tools/call (authenticating the server token, checking the server's revision):
    // client spans under the request's span or the operation's.
    const callStatements = trace.filter(isStatement);
    const writeTrace = spans().filter((s) => s.traceId === writeTraceId);
    const writeHttp = writeTrace.find((s) => s.parentSpanId === writeCallerSpanId);
    expect(writeHttp).toMatchObject({ name: "PATCH /servers/{id}", kind: 2 });
    const writeStatements = writeTrace.filter(isStatement);
    if (onPostgres) {
      expect(callStatements.length).toBeGreaterThan(0);
      expect(callStatements.filter((s) => s.parentSpanId === http?.spanId).length).toBeGreaterThan(0);
      for (const statement of callStatements) {
        expect([http?.spanId, operation?.spanId]).toContain(statement.parentSpanId);
        expect(statement).toMatchObject({
          kind: 3,
          attributes: {
            "db.system.name": "postgresql",
            "db.operation.name": expect.stringMatching(/^[A-Z]+$/),
            "db.query.text": expect.any(String),
            "db.namespace": expect.any(String),
            "server.address": "127.0.0.1",
          },
        });
      }
      // The write's transaction, statement by statement, under the request's span: BEGIN, the reads and
      // the write, the audit event, COMMIT.
      expect(writeStatements.every((s) => s.parentSpanId === writeHttp?.spanId)).toBe(true);
      const names = [...writeStatements].sort((a, b) => (a.startNanos < b.startNanos ? -1 : 1)).map((s) => s.name);
      expect(names[0]).toBe("BEGIN");
      expect(names.at(-1)).toBe("COMMIT");
      expect(names).toEqual(expect.arrayContaining(["UPDATE servers", "INSERT audit_events"]));
      const update = writeStatements.find((s) => s.name === "UPDATE servers");
      expect(update?.attributes).toMatchObject({ "db.operation.name": "UPDATE", "db.collection.name": "servers" });
      // Texts with placeholders: the values written are not in them.
      for (const s of [...callStatements, ...writeStatements]) {
        expect(s.attributes["db.query.text"]).not.toContain("traced write");
        expect(s.attributes["db.query.text"]).not.toContain(token.value);
      }
    } else {
      // The in-memory store sends no statements.
      expect([...callStatements, ...writeStatements]).toEqual([]);
    }

    // Management requests are traced too, each a trace of its own when the caller sent no traceparent.
    const roots = spans().filter((s) => s.parentSpanId === "" && s.name.startsWith("POST /providers"));
    expect(roots.length).toBeGreaterThan(0);
    // No attribute (or anything else exported) holds a token, secret or value the suite sent.
    expect(leakedIn(receiver.bodies.join("\n"))).toEqual([]);
    expect(receiver.bodies.join("\n")).not.toContain(token.value);
  });
});

describe("configuration", () => {
  it("traces go to OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT; unset, OTEL_SDK_DISABLED or exporter none: no tracing", async () => {
    const tracesUrl = async (env: Record<string, string>) =>
      (
        await Effect.runPromise(
          Effect.withConfigProvider(operationsConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))),
        )
      ).tracesUrl;
    expect(await tracesUrl({})).toBeUndefined();
    expect(await tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toBe(
      "http://collector:4318/v1/traces",
    );
    expect(
      await tracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces:4318/custom",
      }),
    ).toBe("http://traces:4318/custom");
    expect(
      await tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" }),
    ).toBeUndefined();
    expect(
      await tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" }),
    ).toBeUndefined();
  });
});

describe("statement spans' names (database semantic conventions)", () => {
  it("operation, and the table when the statement works on one at its top level", () => {
    expect(describeStatement("select json_build_object('id', k.id) as r from server_tokens k where k.id = $1")).toEqual(
      { operation: "SELECT", collection: "server_tokens", summary: "SELECT server_tokens" },
    );
    expect(describeStatement('insert into "audit_events" (id) values ($1)').summary).toBe("INSERT audit_events");
    expect(describeStatement("update servers set name = $2 where id = $1").collection).toBe("servers");
    expect(describeStatement("begin")).toEqual({ operation: "BEGIN", collection: undefined, summary: "BEGIN" });
    // Tables inside subqueries, or a join, name no single collection.
    expect(
      describeStatement("select (select count(*) from providers p) as n, (select 1 from tools) as r").summary,
    ).toBe("SELECT");
    expect(describeStatement("select 1 from servers s join tools t on t.id = s.id").collection).toBeUndefined();
    // After WITH, the first operation in the text; a literal's parenthesis does not confuse the depth.
    expect(describeStatement("with x as (insert into server_tools (a) select $1) select 1").operation).toBe("INSERT");
    expect(describeStatement("select ')' from variables v where v.id = $1").collection).toBe("variables");
  });
});
