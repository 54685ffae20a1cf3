import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { StandardSchemaV1 } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actorOf, connect, manage, type RunningMcp, type Services } from "./support/harness.js";
import { startJobsServer } from "./support/jobs-server.js";
import type { OperationsUpstream } from "./support/operations-upstream.js";

// docs/api-rules.md §22, 2026-07-28 with the tasks extension: a tools/call whose upstream answered 202 returns a
// task; the instance follows the upstream status URL (the call's credentials, once per interval) until the
// operation is done, fails, or passes its deadline, and tasks/get answers the task's record; tasks/cancel ends it.

const TASKS = "io.modelcontextprotocol/tasks";

let services: Services;
let upstream: OperationsUpstream;
let mcp: RunningMcp;
let serverId: string;
let token: string;

beforeAll(async () => {
  ({ services, upstream, mcp, serverId, token } = await startJobsServer(
    { upstreamPollIntervalMs: 10, upstreamOperationDeadlineMs: 1_500 },
    async (m, providerId) => {
      await m.tool(providerId, { name: "echo", method: "GET", path: "/nothing" });
    },
  ));
});

afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
  await services?.dispose();
});

type Task = { taskId: string; status: string; pollIntervalMs: number; ttlMs: number; result?: Record<string, unknown> };

/** Any object result (tasks/get's `DetailedTask`): the test asserts its fields. */
const AnyResult: StandardSchemaV1<unknown, Task> = {
  "~standard": { version: 1, vendor: "test", validate: (value) => ({ value: value as Task }) },
};

/**
 * An SDK client declaring the tasks extension. The SDK's client does not decode `resultType: "task"` yet (it
 * rejects it as unsupported), so the raw tools/call results are kept from the transport's fetch.
 */
const taskClient = async (bearer = token) => {
  const raw: Array<Record<string, unknown>> = [];
  const client = new Client(
    { name: "tasks-test", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { extensions: { [TASKS]: {} } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp/${serverId}`), {
      requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (response.headers.get("content-type")?.startsWith("application/json"))
          raw.push(((await response.clone().json()) as { result?: Record<string, unknown> }).result ?? {});
        return response;
      },
    }),
  );
  const start = async (name: string): Promise<Task> => {
    await client.callTool({ name }).catch(() => undefined);
    const result = raw.at(-1) as Task & { resultType?: string };
    expect(result.resultType).toBe("task");
    return result;
  };
  const get = (taskId: string) => client.request({ method: "tasks/get", params: { taskId } }, AnyResult);
  /** tasks/get until the task leaves `working`, honouring its pollIntervalMs. */
  const settle = async (taskId: string): Promise<Task> => {
    for (;;) {
      const task = await get(taskId);
      if (task.status !== "working") return task;
      await new Promise((resolve) => setTimeout(resolve, task.pollIntervalMs));
    }
  };
  return { client, start, get, settle };
};

describe("protocol 2026-07-28 with the tasks extension", () => {
  let tasks: Awaited<ReturnType<typeof taskClient>>;
  beforeAll(async () => {
    tasks = await taskClient();
  });
  afterAll(async () => {
    await tasks?.client.close();
  });

  it("declares the extension in server/discover", async () => {
    expect(tasks.client.getServerCapabilities()?.extensions?.[TASKS]).toEqual({});
  });

  it("a 202 becomes a task; tasks/get follows the status URL with the call's credentials until done", async () => {
    const before = upstream.looks.length;
    const created = await tasks.start("threeLooks");
    expect(created).toMatchObject({ status: "working", pollIntervalMs: 10 });
    expect(typeof created.ttlMs).toBe("number");
    const done = await tasks.settle(created.taskId);
    expect(done.status).toBe("completed");
    expect(JSON.parse(((done.result?.content ?? []) as Array<{ text: string }>)[0]?.text ?? "")).toMatchObject({
      status: "Succeeded",
    });
    const looks = upstream.looks.slice(before);
    expect(looks).toHaveLength(5);
    expect(looks.every((look) => look.apiKey === "the-key")).toBe(true);
    // A finished task answers from its record, without looking again.
    expect((await tasks.get(created.taskId)).status).toBe("completed");
    expect(upstream.looks.length - before).toBe(5);
  });

  it("polls faster than the interval cost at most one upstream look per interval", async () => {
    const created = await tasks.start("forever");
    const before = upstream.looks.length;
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 20 }, () => tasks.get(created.taskId)));
    const elapsed = performance.now() - started;
    expect(answers.every((task) => task.taskId === created.taskId)).toBe(true);
    // 20 polls at once, over however long they took: never more looks than intervals (the exact count is
    // upstream-tasks-unit.test.ts's, on a clock of its own).
    expect(upstream.looks.length - before).toBeLessThanOrEqual(Math.floor(elapsed / 10) + 1);
    await tasks.client.request({ method: "tasks/cancel", params: { taskId: created.taskId } }, AnyResult);
  });

  it("an operation that fails completes the task with a tool error", async () => {
    const created = await tasks.start("failing");
    const done = await tasks.settle(created.taskId);
    expect(done.status).toBe("completed");
    expect(done.result?.isError).toBe(true);
    expect(JSON.stringify(done.result)).toContain("the job crashed");
  });

  it("an operation that never finishes ends at the task's deadline", async () => {
    const created = await tasks.start("forever");
    const done = await tasks.settle(created.taskId);
    expect(done.result).toEqual({
      isError: true,
      content: [{ type: "text", text: "the upstream operation did not finish within 1500 ms" }],
    });
  });

  it("tasks/cancel ends a task; unknown and other callers' tasks are invalid params", async () => {
    const created = await tasks.start("forever");
    await tasks.client.request({ method: "tasks/cancel", params: { taskId: created.taskId } }, AnyResult);
    expect((await tasks.get(created.taskId)).status).toBe("cancelled");
    // tasks/update: no task of this service ever waits for input.
    await expect(
      tasks.client.request({ method: "tasks/update", params: { taskId: created.taskId } } as never, AnyResult),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(tasks.get("no-such-task")).rejects.toMatchObject({ code: -32602 });
    const m = manage(services, actorOf("acme"));
    const other = await taskClient((await m.token(serverId, { name: "someone else" })).value);
    await expect(other.get(created.taskId)).rejects.toMatchObject({ code: -32602 });
    await other.client.close();
  });

  it("a caller that does not declare the extension gets the result in the call, and no tasks/get", async () => {
    const client = await connect(mcp.url, serverId, "2026-07-28", token);
    const result = await client.callTool({ name: "failing" });
    expect(result.isError).toBe(true);
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"])
      await expect(
        client.request({ method, params: { taskId: "anything" } } as never, AnyResult),
      ).rejects.toMatchObject({ code: -32021 });
    await client.close();
  });
});
