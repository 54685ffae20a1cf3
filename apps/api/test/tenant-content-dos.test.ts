import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_SCOPES } from "@mcpsm/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintDevToken } from "../src/auth/dev-auth.js";
import { type Client, clientFor } from "./support/harness.js";
import { createProvider, createServer, createToken, createTool, promptWrite } from "./support/records.js";
import { type ServiceProcess, startServiceProcess } from "./support/service-process.js";

// One tenant's content must not stop the service for everyone (issue 10). The real service runs in a child
// process; a tenant stores hostile content, then calls it over MCP while this process keeps asking
// /healthz. Every probe must answer within PROBE_BUDGET_MS (plus the machine's idle latency) — on the code
// before the fix, the ReDoS call blocked the event loop for seconds and the prompt amplification rendered
// gigabytes until the heap ran out, so the first probe sent during the attack waited for (or never got) its
// answer.
//
// No sleep: the attack requests and the probes run concurrently; probing stops when the attacks have been
// answered, after at least MIN_PROBES probes.

const PROBE_BUDGET_MS = 200;
const MIN_PROBES = 5;
const IDLE_PROBES = 10;
/** A probe that has not answered by then is recorded as that slow (the process is blocked or gone). */
const PROBE_GIVE_UP_MS = 5_000;

/**
 * The attack requests one after another: one hostile request is enough to block a process, and a 2-core
 * machine shared with other builds would otherwise measure its own queueing rather than the service.
 */
const oneAfterAnother = async <I, A>(items: ReadonlyArray<I>, send: (item: I) => Promise<A>): Promise<Array<A>> => {
  const answers: Array<A> = [];
  for (const item of items) answers.push(await send(item));
  return answers;
};

/** A JSON-RPC answer of the MCP endpoint, whether sent as JSON or as one SSE event. */
const rpcAnswer = (text: string): Record<string, unknown> => {
  const data = text
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trim());
  return JSON.parse(data.length > 0 ? data.join("") : text) as Record<string, unknown>;
};

describe("tenant-written content against the running service", () => {
  let dataDir: string;
  let service: ServiceProcess;
  let url: string;
  let api: Client;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "mcpsm-tenant-content-"));
    // A capped heap: if rendering ever amplifies again, the child dies fast instead of growing to gigabytes.
    service = startServiceProcess({ DATA_DIR: dataDir, NODE_OPTIONS: "--max-old-space-size=768" });
    url = await service.listening(60_000);
    api = clientFor(url, await mintDevToken(dataDir, { subject: "hostile", scopes: ALL_SCOPES }));
  });
  afterAll(async () => {
    await service?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  /** Latencies of /healthz probes sent one after another until `attack` settles (at least MIN_PROBES). */
  const probeWhile = async <A>(
    attack: Promise<A>,
    budget: number,
  ): Promise<{ latencies: Array<number>; result: A }> => {
    let done = false;
    const settled = attack.finally(() => {
      done = true;
    });
    const latencies: Array<number> = [];
    while (!done || latencies.length < MIN_PROBES) {
      const started = performance.now();
      try {
        const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(PROBE_GIVE_UP_MS) });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
      } catch {
        latencies.push(PROBE_GIVE_UP_MS);
      }
      // A blocked (or dead) service has failed already: stop instead of probing it for the whole attack.
      if (latencies.at(-1)! >= budget) break;
    }
    // A service that failed the probes may never answer the attack (or drop it): that is not this error.
    if (!done) settled.catch(() => {});
    return { latencies, result: done ? await settled : (undefined as A) };
  };

  /**
   * PROBE_BUDGET_MS plus the slowest of IDLE_PROBES probes without any attack: the machine's own latency
   * (on a 2-core machine shared with other builds it reached 100 ms) is not the service's doing. A blocked
   * event loop costs seconds, far past either.
   */
  const probeBudget = async (): Promise<number> => {
    let slowest = 0;
    for (let i = 0; i < IDLE_PROBES; i++) {
      const started = performance.now();
      await (await fetch(`${url}/healthz`)).arrayBuffer();
      slowest = Math.max(slowest, performance.now() - started);
    }
    return PROBE_BUDGET_MS + slowest;
  };

  const mcpCall = async (serverId: string, token: string, method: string, params: unknown) => {
    const res = await fetch(`${url}/mcp/${serverId}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return { status: res.status, answer: rpcAnswer(await res.text()) };
  };

  it("F1: a ReDoS pattern in a tool schema is accepted but matched in linear time; /healthz keeps answering", async () => {
    const provider = await createProvider(api);
    const tool = await createTool(api, provider.id, {
      method: "POST",
      reqBodyJSONSchema: { type: "object", properties: { a: { type: "string", pattern: "^(a+)+$" } } },
    });
    const server = await createServer(api, { providers: [{ id: provider.id, tools: [{ id: tool.id }] }] });
    const token = (await createToken(api, server.id)).value as string;
    // The first call compiles the server and the tool's validator (one-time work); the attack follows.
    const first = await mcpCall(server.id, token, "tools/call", {
      name: tool.name,
      arguments: { bodyArgs: { a: "b" } },
    });
    expect(JSON.stringify(first.answer)).toContain("must match pattern");
    // 27 `a` and a `!` take V8's backtracking engine ~2^27 steps (seconds); 100,000 would take forever.
    const inputs = [`${"a".repeat(27)}!`, `${"a".repeat(40)}!`, `${"a".repeat(100_000)}!`];
    const budget = await probeBudget();
    const attack = oneAfterAnother(inputs, (a) =>
      mcpCall(server.id, token, "tools/call", { name: tool.name, arguments: { bodyArgs: { a } } }),
    );
    const { latencies, result } = await probeWhile(attack, budget);
    expect(Math.max(...latencies), `probe latencies (ms): ${latencies.map(Math.round).join(", ")}`).toBeLessThan(
      budget,
    );
    for (const { status, answer } of result) {
      expect(status).toBe(200);
      const call = answer.result as { isError: boolean; content: Array<{ text: string }> };
      expect(call.isError).toBe(true);
      expect(call.content[0]?.text).toContain('bodyArgs.a: must match pattern "^(a+)+$"');
    }
    // Past the matching budget the argument is refused unread, in constant time.
    const long = await mcpCall(server.id, token, "tools/call", {
      name: tool.name,
      arguments: { bodyArgs: { a: `${"a".repeat(1_000_000)}!` } },
    });
    expect(JSON.stringify(long.answer)).toContain("too long to check against the tool's patterns");
  });

  it("F1: a pattern the linear-time engine cannot run is refused at write time, naming its path", async () => {
    const provider = await createProvider(api);
    const res = await api.post(`/providers/${provider.id}/tools`, {
      tool: {
        name: "backref",
        method: "POST",
        path: "/x",
        reqBodyJSONSchema: { type: "object", properties: { a: { type: "string", pattern: "^(a+)\\1$" } } },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        path: "tool.reqBodyJSONSchema",
        message: expect.stringContaining("properties.a.pattern: uses a backreference"),
      },
    ]);
  });

  it("F2: prompts/get of a 200,000-placeholder prompt with a 25 KB argument is a JSON-RPC error; /healthz keeps answering", async () => {
    const provider = await createProvider(api);
    // The probe's prompt: 10 messages, each `{{a}}` 20,000 times (a ~1 MB create body, accepted).
    const write = promptWrite({
      arguments: [{ name: "a", description: "filler", required: true }],
      messages: Array.from({ length: 10 }, () => ({
        role: "user",
        content: { type: "text", text: "{{a}}".repeat(20_000) },
      })),
    });
    const created = await api.post(`/providers/${provider.id}/prompts`, { prompt: write });
    expect(created.status).toBe(201);
    const server = await createServer(api, {
      providers: [{ id: provider.id, tools: [] }],
      prompts: [{ id: created.body.prompt.id }],
    });
    const token = (await createToken(api, server.id)).value as string;
    // The first call compiles the server (one-time work); the attack follows.
    const first = await mcpCall(server.id, token, "prompts/get", { name: write.name, arguments: { a: "x" } });
    expect(JSON.stringify(first.answer)).toContain("more than 1000 argument placeholders");
    const budget = await probeBudget();
    const attack = oneAfterAnother([25_000, 25_000, 10_000], (length) =>
      mcpCall(server.id, token, "prompts/get", { name: write.name, arguments: { a: "x".repeat(length) } }),
    );
    const { latencies, result } = await probeWhile(attack, budget);
    expect(Math.max(...latencies), `probe latencies (ms): ${latencies.map(Math.round).join(", ")}`).toBeLessThan(
      budget,
    );
    for (const { answer } of result) {
      const error = answer.error as { code: number; message: string };
      expect(error.code).toBe(-32602);
      expect(error.message).toContain("more than 1000 argument placeholders");
    }
    // Still alive and serving.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
