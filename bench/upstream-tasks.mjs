// What following long-running upstream operations costs (docs/api-rules.md §22), in the real service.
//
//   ./run build && node bench/upstream-tasks.mjs [tasks=1000] [intervalMs=1000] [seconds=10] [phases=all]
//
// `phases`: all, tasks (the first two) or in-call (the third alone). A local upstream answers POST /jobs with
// 202 + Operation-Location; its status URL answers 202 until the bench says the jobs are done. Three phases,
// each over `seconds` of wall time with `tasks` operations:
//   idle tasks    — 2026-07-28 callers with the tasks extension create `tasks` tasks, then nobody polls: the
//                   creating instance follows each (one timer per task, one look per interval) and writes
//                   the task's record only when something changed; upstream looks and CPU;
//   polled tasks  — every task is polled with tasks/get every interval/4 (4× faster than asked): upstream
//                   looks per task per interval (still 1: a tasks/get reads the record) and CPU per tasks/get;
//   in-call       — `tasks` concurrent 2025-11-25 tools/call with a progressToken that follow their operation
//                   inside the call (each on a connection of its own, held until it answers): upstream looks
//                   per call per interval, progress notifications, and CPU while they wait;
// then the jobs finish and every call and task is checked to have its result. CPU is process.cpuUsage() of
// this one process (service, upstream and clients together: an upper bound of the service's), memory the
// RSS and heap growth over the phase.
import { createServer } from "node:http";
import { defaultMcpSettings } from "@mcpsm/mcp-runtime";
import { Agent } from "undici";
import { startLocalService } from "./lib/local-service.mjs";

const TASKS = Number(process.argv[2] ?? 1000);
const INTERVAL_MS = Number(process.argv[3] ?? 1000);
const SECONDS = Number(process.argv[4] ?? 10);
const PHASES = process.argv[5] ?? "all";
if (!["all", "tasks", "in-call"].includes(PHASES)) throw new Error(`phases: all, tasks or in-call, not ${PHASES}`);

// The upstream: every job is one operation; its status answers 202 until `done`. Tasks start theirs with
// POST /jobs, in-call operations with POST /calls: their looks are counted apart (tasks keep being followed
// while the in-call phase runs).
let done = false;
const looks = { jobs: 0, calls: 0 };
let posts = 0;
let next = 0;
const upstream = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (req.method === "POST" && (req.url === "/jobs" || req.url === "/calls")) {
      posts++;
      const kind = req.url.slice(1);
      res.writeHead(202, { "Content-Type": "application/json", "Operation-Location": `/ops/${kind}/${++next}` });
      res.end("{}");
      return;
    }
    looks[req.url.startsWith("/ops/calls/") ? "calls" : "jobs"]++;
    res.writeHead(done ? 200 : 202, { "Content-Type": "application/json" });
    res.end(done ? '{"status":"Succeeded"}' : '{"status":"Running"}');
  });
});
await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamUrl = `http://127.0.0.1:${upstream.address().port}`;

const service = await startLocalService({
  mcp: defaultMcpSettings({
    upstreamAllowedNetworks: ["127.0.0.0/8"],
    upstreamPollIntervalMs: INTERVAL_MS,
    upstreamCallDeadlineMs: 600_000,
    upstreamOperationDeadlineMs: 600_000,
  }),
});
const { api } = service;
const { provider } = await api("/providers", { provider: { name: "Jobs", baseURL: upstreamUrl } });
await api(`/providers/${provider.id}/tools`, { tool: { name: "startJob", method: "POST", path: "/jobs" } });
await api(`/providers/${provider.id}/tools`, { tool: { name: "callJob", method: "POST", path: "/calls" } });
const { server } = await api("/servers", { server: { name: "Jobs", providers: [{ id: provider.id }] } });
const { token } = await api(`/servers/${server.id}/tokens`, { token: { name: "bench" } });

// Raw JSON-RPC over one keep-alive pool: 1,000 SDK clients would measure the SDK client, not the service.
const dispatcher = new Agent({ connections: 256, keepAliveTimeout: 60_000 });
// A 2025-11-25 call holds its connection until its operation ends: one connection per concurrent call.
const heldCalls = new Agent({ connections: TASKS + 16, keepAliveTimeout: 60_000 });
let progressed = 0;
const { fetch } = await import("undici");
const TASKS_EXT = "io.modelcontextprotocol/tasks";
let id = 0;
const modern = async (method, params, name) => {
  const response = await fetch(`${service.url}/mcp/${server.id}`, {
    dispatcher,
    method: "POST",
    headers: {
      Authorization: `Bearer ${token.value}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": method,
      "Mcp-Name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXT]: {} } },
        },
      },
    }),
  });
  const message = JSON.parse(await response.text());
  if (message.error) throw new Error(JSON.stringify(message.error));
  return message.result;
};
const legacyCall = async () => {
  const response = await fetch(`${service.url}/mcp/${server.id}`, {
    dispatcher: heldCalls,
    method: "POST",
    headers: {
      Authorization: `Bearer ${token.value}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method: "tools/call",
      params: { name: "callJob", _meta: { progressToken: `call-${id}` } },
    }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
  progressed += text.split("notifications/progress").length - 1;
  // An answer on an event stream: its last `data:` line is the result.
  const data = text.includes("data:")
    ? text
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .at(-1)
        .slice(5)
    : text;
  const message = JSON.parse(data);
  if (message.error) throw new Error(JSON.stringify(message.error));
  return message.result;
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const signed = (bytes) => `${bytes < 0 ? "-" : "+"}${mb(Math.abs(bytes))}`;
/** Runs `during` for SECONDS of wall time; CPU, memory and upstream looks of `kind` over that window. */
const measure = async (label, kind, during) => {
  global.gc?.();
  const memory = process.memoryUsage();
  const cpu = process.cpuUsage();
  const lookedBefore = looks[kind];
  const started = performance.now();
  const extra = await during();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const after = process.memoryUsage();
  const cpuMs = (used.user + used.system) / 1000;
  const intervals = wall / INTERVAL_MS;
  const looked = looks[kind] - lookedBefore;
  console.log(
    `${label.padEnd(14)} wall ${(wall / 1000).toFixed(1)} s  CPU ${cpuMs.toFixed(0)} ms (${((cpuMs / wall) * 100).toFixed(1)}% of a core)  ` +
      `upstream looks ${looked} = ${(looked / TASKS / intervals).toFixed(2)} per task per interval  ` +
      `RSS ${mb(after.rss)} (${signed(after.rss - memory.rss)})  heap ${signed(after.heapUsed - memory.heapUsed)}${extra ?? ""}`,
  );
};

console.log(
  `${TASKS} operations, poll interval ${INTERVAL_MS} ms, ${SECONDS} s per phase, node ${process.version}, ${process.platform}/${process.arch}`,
);

// Tasks: created (not timed), then left alone, then polled.
const created = [];
if (PHASES !== "in-call") {
  for (let i = 0; i < TASKS; i += 100)
    created.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(100, TASKS - i) }, () => modern("tools/call", { name: "startJob" }, "startJob")),
      )),
    );
  const notTasks = created.filter((task) => task.resultType !== "task");
  if (notTasks.length > 0)
    throw new Error(`${notTasks.length} calls did not become tasks, e.g. ${JSON.stringify(notTasks[0]).slice(0, 500)}`);
  await measure("idle tasks", "jobs", () => sleep(SECONDS * 1000));
  let gets = 0;
  await measure("polled tasks", "jobs", async () => {
    const until = performance.now() + SECONDS * 1000;
    await Promise.all(
      created.map(async (task, i) => {
        await sleep((i / TASKS) * (INTERVAL_MS / 4));
        while (performance.now() < until) {
          await modern("tasks/get", { taskId: task.taskId }, task.taskId);
          gets++;
          await sleep(INTERVAL_MS / 4);
        }
      }),
    );
    return `  tasks/get ${gets}`;
  });
}

// In-call: concurrent 2025-11-25 calls waiting on their operations (measured once all of them were accepted).
let failed = [];
if (PHASES !== "tasks") {
  const postedBefore = posts;
  const admitted = performance.now();
  let settled = 0;
  const calls = [];
  // Admitted in waves of 100 (each wave accepted upstream before the next starts), as the tasks are created:
  // 1,000 connections opened at once queue their heads behind the busy event loop they share with the
  // clients, and past the service's 20 s headers timeout (a slow-loris guard) it resets them.
  for (let wave = 0; wave < TASKS; wave += 100) {
    const size = Math.min(100, TASKS - wave);
    const target = wave + size;
    for (let i = 0; i < size; i++)
      calls.push(
        legacyCall()
          .catch((error) => {
            if (settled === 0) console.log(`  first failed call: ${String(error)} ${String(error.cause ?? "")}`);
            return { thrown: String(error) };
          })
          .then((result) => {
            if (settled === 0 && (!result || result.isError))
              console.log(`  first failed call: ${JSON.stringify(result).slice(0, 500)}`);
            return result;
          })
          .finally(() => settled++),
      );
    // A call that fails before reaching the upstream never posts (and no posted call settles before `done`).
    while (posts - postedBefore + settled < target) await sleep(20);
  }
  console.log(
    `${posts - postedBefore} in-call operations accepted in ${((performance.now() - admitted) / 1000).toFixed(1)} s` +
      (settled > 0 ? ` (${settled} calls failed before)` : ""),
  );
  await measure("in-call", "calls", () => sleep(SECONDS * 1000));
  done = true;
  const results = await Promise.all(calls);
  failed = results.filter((result) => !result || result.isError || result.thrown);
  if (failed.length > 0) console.log(`in-call failures: ${failed.length}, e.g. ${JSON.stringify(failed[0])}`);
  console.log(`progress notifications received: ${progressed} (${(progressed / TASKS).toFixed(1)} per call)`);
}
done = true;
await sleep(INTERVAL_MS + 100);
const finished = await Promise.all(created.map((task) => modern("tasks/get", { taskId: task.taskId }, task.taskId)));
if (!finished.every((task) => task.status === "completed")) throw new Error("a task did not complete");
console.log(
  `${PHASES === "tasks" ? 0 : TASKS - failed.length} in-call results and ${created.length} tasks completed with the upstream's answer`,
);

await heldCalls.close();
await dispatcher.close();
await service.close();
upstream.closeAllConnections();
upstream.close();
