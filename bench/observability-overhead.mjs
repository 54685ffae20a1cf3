// What metrics and tracing cost per request: the service's CPU time per tools/call and per GET /servers/{id}.
//
//   ./run build && node bench/observability-overhead.mjs [rounds=12] [callsPerRound=300] [storage=memory|<postgres url>]
//
// Each variant of the real service (apps/api, dev auth) runs in a process of its own: plain (no METRICS_PORT,
// no OTEL_EXPORTER_OTLP_ENDPOINT: the default when unset), plain again (a control: the same configuration in
// another process, so the difference between the two is the method's noise floor), metrics (METRICS_PORT
// set), tracing (an OTLP/HTTP endpoint: a loopback sink in this process that accepts and drops the spans)
// and both. The figure is the service process's own CPU time (user + system, `process.cpuUsage()` read over
// IPC before and after a batch) divided by the requests of the batch: unlike latency it does not count time
// spent waiting for a core, so it holds on a loaded, shared machine. Batches alternate between the variants
// in a rotating order; each round compares every variant with plain's batch of the same round (a ratio), so
// drift of the machine between rounds cancels out. Reported: the median ratio over rounds and its
// interquartile range, the median CPU time per request, and wall time.
//
// With a PostgreSQL URL as third argument every variant gets a fresh database on that server (dropped
// after), so tracing includes a span per SQL statement.
import { fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const SERVE = process.argv[2] === "--serve";

// ---------------------------------------------------------------------------------------------------------
// The child: one service, answering "cpu" with its CPU time so far.
if (SERVE) {
  const { mintDevToken } = await import("@mcpsm/api/dist/auth/dev-auth.js");
  const { startService } = await import("@mcpsm/api/dist/service.js");
  const { DEFAULT_QUOTAS } = await import("@mcpsm/domain/use-cases");
  const { defaultMcpSettings } = await import("@mcpsm/mcp-runtime");
  const { Option } = await import("effect");
  const { default: pino } = await import("pino");
  const { DEFAULT_SECURITY_SETTINGS } = await import("@mcpsm/api/dist/config/security-config.js");
  const { operations, databaseUrl } = JSON.parse(process.argv[3]);
  const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-obs-"));
  let storage;
  let database;
  if (databaseUrl !== undefined) {
    const { makePostgresStorage } = await import("@mcpsm/storage-postgres");
    const { createServerDatabase } = await import("@mcpsm/storage-postgres/testing");
    database = await createServerDatabase(databaseUrl);
    storage = await makePostgresStorage({ url: database.url, poolSize: 4 });
    await storage.migrate();
  }
  const service = await startService(
    {
      port: 0,
      host: "127.0.0.1",
      dataDir,
      logLevel: "silent",
      auth: { mode: "dev", tenantClaim: "sub" },
      encryptionKey: Option.none(),
      quotas: DEFAULT_QUOTAS,
      mcp: defaultMcpSettings({ upstreamAllowedNetworks: ["127.0.0.0/8"] }),
      operations: { auditRetentionDays: 90, metricsPort: undefined, ...operations },
      // Thousands of calls a minute from one tenant: the rate limits would refuse them.
      security: {
        ...DEFAULT_SECURITY_SETTINGS,
        rateLimit: { ...DEFAULT_SECURITY_SETTINGS.rateLimit, enabled: false },
      },
    },
    { logger: pino({ level: "silent" }), ...(storage === undefined ? {} : { storage: storage.layer }) },
  );
  const admin = await mintDevToken(dataDir, { subject: "bench" });
  process.on("message", async (message) => {
    if (message === "cpu") {
      const { user, system } = process.cpuUsage();
      process.send({ cpuMicros: user + system });
    } else if (message === "stop") {
      await service.close();
      await storage?.close();
      await database?.dispose();
      await rm(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  });
  // The driver is gone (it failed): stop too.
  process.on("disconnect", () => process.exit(1));
  process.send({ url: service.url, admin });
} else {
  await main();
}

// ---------------------------------------------------------------------------------------------------------
// The driver.
async function main() {
  const ROUNDS = Number(process.argv[2] ?? 12);
  const CALLS = Number(process.argv[3] ?? 300);
  const databaseUrl = process.argv[4] === undefined || process.argv[4] === "memory" ? undefined : process.argv[4];
  const WARMUP = 300;

  const listen = async (handler) => {
    const server = createServer(handler);
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { server, url: `http://127.0.0.1:${server.address().port}` };
  };
  const payload = JSON.stringify({ id: 42, name: "widget", tags: ["a", "b"], price: 9.99 });
  const upstream = await listen((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(payload);
  });
  let exports = 0;
  const sink = await listen((req, res) => {
    exports++;
    req.resume();
    req.on("end", () => res.writeHead(200, { "Content-Type": "application/json" }).end("{}"));
  });

  const children = [];
  process.on("exit", () => {
    for (const child of children) child.kill();
  });
  /** One variant: its process, its records, an MCP client, and a way to read its CPU time. */
  const start = async (name, operations) => {
    const child = fork(new URL(import.meta.url).pathname, ["--serve", JSON.stringify({ operations, databaseUrl })], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    children.push(child);
    const replies = [];
    const waiting = [];
    child.on("message", (m) => (waiting.length > 0 ? waiting.shift()(m) : replies.push(m)));
    const next = () =>
      new Promise((resolve) => (replies.length > 0 ? resolve(replies.shift()) : waiting.push(resolve)));
    const { url, admin } = await next();
    const api = async (method, path, body) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response.json();
    };
    const { provider } = await api("POST", "/providers", { provider: { name: "Bench", baseURL: upstream.url } });
    await api("POST", `/providers/${provider.id}/tools`, {
      tool: {
        name: "getItem",
        method: "GET",
        path: "/items/{id}",
        pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      },
    });
    const { server } = await api("POST", "/servers", { server: { name: "Bench", providers: [{ id: provider.id }] } });
    const { token } = await api("POST", `/servers/${server.id}/tokens`, { token: { name: "bench" } });
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp/${server.id}`), {
        requestInit: { headers: { Authorization: `Bearer ${token.value}` } },
      }),
    );
    const workloads = {
      "tools/call": async () => {
        const result = await client.callTool({ name: "getItem", arguments: { pathArgs: { id: "42" } } });
        if (result.isError) throw new Error(JSON.stringify(result));
      },
      "GET /servers/{id}": () => api("GET", `/servers/${server.id}`),
    };
    const cpuMicros = async () => {
      child.send("cpu");
      return (await next()).cpuMicros;
    };
    const stop = async () => {
      await client.close();
      child.send("stop");
      await new Promise((resolve) => child.once("exit", resolve));
    };
    return { name, workloads, cpuMicros, stop, cpu: {}, wall: {} };
  };

  const tracesUrl = `${sink.url}/v1/traces`;
  const variants = [
    await start("plain", {}),
    await start("plain'", {}),
    await start("metrics", { metricsPort: 0 }),
    await start("tracing", { tracesUrl }),
    await start("both", { metricsPort: 0, tracesUrl }),
  ];
  const workloadNames = Object.keys(variants[0].workloads);

  for (const v of variants) for (const w of workloadNames) for (let i = 0; i < WARMUP; i++) await v.workloads[w]();

  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0) process.stderr.write(`round ${round + 1}/${ROUNDS}\r`);
    for (const w of workloadNames)
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(round + k) % variants.length];
        const before = await v.cpuMicros();
        const started = process.hrtime.bigint();
        for (let i = 0; i < CALLS; i++) await v.workloads[w]();
        const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
        const after = await v.cpuMicros();
        v.cpu[w] = [...(v.cpu[w] ?? []), (after - before) / 1000 / CALLS];
        v.wall[w] = [...(v.wall[w] ?? []), wallMs / CALLS];
      }
  }

  const quantile = (values, q) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (sorted.length - 1) * q;
    const low = Math.floor(at);
    return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
  };
  const median = (values) => quantile(values, 0.5);
  const f = (ms) => `${ms.toFixed(3)} ms`;
  const pct = (ratio) => `${ratio >= 1 ? "+" : ""}${((ratio - 1) * 100).toFixed(1)} %`;
  console.log(
    `${ROUNDS} rounds × ${CALLS} requests per variant and workload (after ${WARMUP} warm-up), node ${process.version}, ` +
      `store: ${databaseUrl === undefined ? "memory" : "postgres"}`,
  );
  for (const w of workloadNames) {
    const base = variants[0].cpu[w];
    console.log(`\n${w}: service CPU time per request, against plain in the same round`);
    console.log("  variant   added CPU (median, IQR)            CPU/request   wall/request");
    for (const v of variants) {
      const ratios = v.cpu[w].map((cpu, round) => cpu / base[round]);
      const added =
        v === variants[0]
          ? "(baseline)"
          : `${pct(median(ratios))} [${pct(quantile(ratios, 0.25))} … ${pct(quantile(ratios, 0.75))}]`;
      console.log(
        `  ${v.name.padEnd(9)} ${added.padEnd(34)} ${f(median(v.cpu[w])).padEnd(13)} ${f(median(v.wall[w]))}`,
      );
    }
  }
  for (const v of variants) await v.stop();
  console.log(`\nOTLP export requests received by the sink: ${exports}`);
  upstream.server.close();
  sink.server.close();
}
