import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Storage } from "@mcpsm/domain/storage";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { makePostgresStorage } from "@mcpsm/storage-postgres";
import { createServerDatabase } from "@mcpsm/storage-postgres/testing";
import { Client, type StandardSchemaV1, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Layer } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/harness.js";

// docs/api-rules.md §22 across instances (issue 34): two services on one store (PostgreSQL when
// API_TEST_STORAGE=postgres, else one in-memory store). A 2026-07-28 caller with the tasks extension starts a
// long-running operation on A; B answers tasks/get from the task's record (A follows the upstream), down to
// the result; tasks/cancel on B stops A's polling; a task whose instance stopped fails after its deadline.

const onPostgres = process.env.API_TEST_STORAGE === "postgres";
const TASKS = "io.modelcontextprotocol/tasks";
/** The status of a job answers 202 this many times, then 200 with the job. */
const LOOKS = 3;

type Task = { taskId: string; status: string; statusMessage?: string; pollIntervalMs: number; result?: unknown };
const AnyTask: StandardSchemaV1<unknown, Task> = {
  "~standard": { version: 1, vendor: "test", validate: (value) => ({ value: value as Task }) },
};

let dispose: () => Promise<void> = async () => {};
let options: Parameters<typeof startTestService>[0];
let a: TestService;
let b: TestService;
let upstream: Server;
const looks: Array<string> = [];
const ids = { server: "", token: "" };

/** `POST /jobs` → 202 + Operation-Location; its status answers 202 LOOKS times, then 200; `/stuck` never ends. */
const startJobs = async () => {
  const left = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const path = req.url ?? "/";
      res.setHeader("Content-Type", "application/json");
      if (req.method === "POST") {
        const id = `${path.slice(1)}-${left.size + 1}`;
        left.set(id, LOOKS);
        res.writeHead(202, { "Operation-Location": `/ops/${id}` }).end('{"status":"Accepted"}');
        return;
      }
      const id = path.slice("/ops/".length);
      looks.push(id);
      const remaining = left.get(id) ?? 0;
      left.set(id, remaining - 1);
      if (id.startsWith("stuck") || remaining > 0) res.writeHead(202).end('{"status":"Running"}');
      else res.writeHead(200).end(JSON.stringify({ id, status: "Succeeded", size: 42 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
};

beforeAll(async () => {
  let shared: Layer.Layer<Storage>;
  if (onPostgres) {
    const database = await createServerDatabase(process.env.TEST_DATABASE_URL ?? "");
    const postgres = await makePostgresStorage({ url: database.url, poolSize: 4 });
    await postgres.migrate();
    shared = postgres.layer;
    dispose = async () => {
      await postgres.close();
      await database.dispose();
    };
  } else shared = Layer.succeed(Storage, makeMemoryStorage());
  upstream = await startJobs();
  const mcp = {
    upstreamAllowedNetworks: ["127.0.0.0/8"],
    upstreamPollIntervalMs: 20,
    upstreamOperationDeadlineMs: 1_500,
    upstreamTimeoutMs: 500,
  };
  options = { ownStorage: shared, encryptionKey: new Uint8Array(randomBytes(32)), mcp };
  a = await startTestService(options);
  b = await startTestService(options);
  const owner = await a.tenant("tasks-instances");
  const baseURL = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const provider = await owner.api.post("/providers", { provider: { name: "Jobs", baseURL } });
  for (const name of ["jobs", "stuck"])
    await owner.api.post(`/providers/${provider.body.provider.id}/tools`, {
      tool: { name, method: "POST", path: `/${name}` },
    });
  const server = await owner.api.post("/servers", {
    server: { name: "Jobs", providers: [{ id: provider.body.provider.id }] },
  });
  ids.server = server.body.server.id;
  ids.token = (await owner.api.post(`/servers/${ids.server}/tokens`, { token: { name: "t" } })).body.token.value;
});

afterAll(async () => {
  await b?.close();
  await a?.close();
  await new Promise((resolve) => upstream?.close(resolve));
  await dispose();
});

/**
 * An SDK client of `svc` declaring the tasks extension. The SDK 2.4 client rejects `resultType: "task"` as
 * unsupported, so the raw tools/call result is read from the transport's fetch.
 */
const taskClient = async (svc: TestService) => {
  const raw: Array<Record<string, unknown>> = [];
  const client = new Client(
    { name: "tasks-instances-test", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { extensions: { [TASKS]: {} } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${ids.server}`), {
      requestInit: { headers: { Authorization: `Bearer ${ids.token}` } },
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (response.headers.get("content-type")?.startsWith("application/json"))
          raw.push(((await response.clone().json()) as { result?: Record<string, unknown> }).result ?? {});
        return response;
      },
    }),
  );
  return {
    client,
    start: async (name: string): Promise<Task> => {
      await client.callTool({ name }).catch(() => undefined);
      const created = raw.at(-1) as Task & { resultType?: string };
      expect(created.resultType).toBe("task");
      return created;
    },
    get: (taskId: string) => client.request({ method: "tasks/get", params: { taskId } }, AnyTask),
    /** tasks/get until the task leaves `working`, honouring its pollIntervalMs. */
    settle: async (taskId: string): Promise<Task> => {
      for (;;) {
        const task = await client.request({ method: "tasks/get", params: { taskId } }, AnyTask);
        if (task.status !== "working") return task;
        await new Promise((resolve) => setTimeout(resolve, task.pollIntervalMs));
      }
    },
  };
};

/** One 2026-07-28 JSON-RPC request declaring the tasks extension, sent without the SDK; its JSON answer. */
const rawRequest = async (svc: TestService, method: string, params: Record<string, unknown>) => {
  const response = await fetch(`${svc.url}/mcp/${ids.server}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${ids.token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": method,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  return (await response.json()) as Record<string, unknown>;
};

describe("tasks across two instances", () => {
  it("a task created on A is followed to its result through tasks/get on B", async () => {
    const onA = await taskClient(a);
    const onB = await taskClient(b);
    try {
      const created = await onA.start("jobs");
      expect(created.status).toBe("working");
      expect((await onB.get(created.taskId)).taskId).toBe(created.taskId);
      const done = await onB.settle(created.taskId);
      expect(done.status).toBe("completed");
      const result = done.result as { isError?: boolean; content: Array<{ text: string }> };
      expect(result.isError ?? false).toBe(false);
      expect(JSON.parse(result.content[0]?.text ?? "")).toMatchObject({ status: "Succeeded", size: 42 });
      // The upstream saw LOOKS + 1 looks at this job (A's), however often B was asked.
      expect(looks.filter((id) => id.startsWith("jobs-")).length).toBe(LOOKS + 1);
      // The extension has no tasks/result (the result travels in tasks/get; the SDK client will not even send
      // it in this era): B answers it as an unknown method.
      expect(await rawRequest(b, "tasks/result", { taskId: created.taskId })).toMatchObject({
        error: { code: -32601 },
      });
    } finally {
      await onA.client.close();
      await onB.client.close();
    }
  });

  it("tasks/cancel on B cancels the task A follows; A looks no more", async () => {
    const onA = await taskClient(a);
    const onB = await taskClient(b);
    try {
      const created = await onA.start("stuck");
      await onB.client.request({ method: "tasks/cancel", params: { taskId: created.taskId } }, AnyTask);
      expect((await onA.get(created.taskId)).status).toBe("cancelled");
      const seen = looks.length;
      // The next poll A would make is a record read that finds the task cancelled; asking B shows it unchanged.
      expect((await onB.get(created.taskId)).status).toBe("cancelled");
      expect(looks.length - seen).toBeLessThanOrEqual(1);
    } finally {
      await onA.client.close();
      await onB.client.close();
    }
  });

  it("a task that cannot finish completes with the deadline's tool error, read on B", async () => {
    const onA = await taskClient(a);
    const onB = await taskClient(b);
    try {
      const created = await onA.start("stuck");
      const done = await onB.settle(created.taskId);
      expect(done).toMatchObject({
        status: "completed",
        result: {
          isError: true,
          content: [{ type: "text", text: "the upstream operation did not finish within 1500 ms" }],
        },
      });
    } finally {
      await onA.client.close();
      await onB.client.close();
    }
  });

  it("a task whose instance stopped fails on B once its deadline and grace have passed", async () => {
    const c = await startTestService(options);
    const onC = await taskClient(c);
    const onB = await taskClient(b);
    try {
      const created = await onC.start("stuck");
      await onC.client.close();
      await c.close();
      const failed = await onB.settle(created.taskId);
      expect(failed.status).toBe("failed");
      expect(failed.statusMessage).toContain("stopped before it finished");
    } finally {
      await onB.client.close();
    }
  });
});
