// A closed-loop load generator: `connections` keep-alive connections, each sending its next request when the
// previous answer arrived, for a warm-up (discarded) and then a measured window. Reports req/s, p50/p99 and
// the CPU milliseconds per request of the processes named in `cpu` ({ name: () => pids }).
import { Agent, request } from "node:http";
import { cpuMs } from "./service-process.mjs";

const send = (agent, url, { method = "GET", path, headers = {}, body }) =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(`${url}${path}`, { agent, method, headers }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => {
        const ms = performance.now() - started;
        if (res.statusCode < 200 || res.statusCode >= 300)
          reject(new Error(`${method} ${path}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`));
        else resolve(ms);
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];

const cpuOf = (cpu) =>
  Object.fromEntries(Object.entries(cpu).map(([name, pids]) => [name, pids().map((pid) => [pid, cpuMs(pid)])]));
const cpuDelta = (before, after) =>
  Object.fromEntries(
    Object.entries(after).map(([name, now]) => {
      const was = new Map(before[name]);
      return [name, now.reduce((sum, [pid, ms]) => sum + ms - (was.get(pid) ?? 0), 0)];
    }),
  );

/**
 * Runs the load: `next()` gives each request ({ method, path, headers, body }). Returns
 * { rps, p50, p99, requests, cpuMsPerRequest: { name: ms } }.
 */
export const closedLoop = async ({ url, next, connections = 1, warmupMs = 2000, durationMs = 8000, cpu = {} }) => {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  try {
    const phase = async (ms, record) => {
      const until = performance.now() + ms;
      const latencies = [];
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < until) latencies.push(await send(agent, url, next()));
        }),
      );
      return record ? latencies : [];
    };
    await phase(warmupMs, false);
    const before = cpuOf(cpu);
    const t0 = performance.now();
    const latencies = await phase(durationMs, true);
    const elapsed = performance.now() - t0;
    const used = cpuDelta(before, cpuOf(cpu));
    latencies.sort((a, b) => a - b);
    return {
      requests: latencies.length,
      rps: (latencies.length * 1000) / elapsed,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      cpuMsPerRequest: Object.fromEntries(Object.entries(used).map(([name, ms]) => [name, ms / latencies.length])),
    };
  } finally {
    agent.destroy();
  }
};

/** Formats a number of milliseconds with two decimals. */
export const ms = (value) => (Number.isFinite(value) ? value.toFixed(2) : "-");
