// The service's read hot paths on PostgreSQL, measured the way a shared machine allows: CPU milliseconds of
// the service (and of its PostgreSQL backends) per call, besides req/s and latency percentiles.
//
//   ./run build && node bench/hot-paths.mjs [seconds=10] [connections=16]
//
// Starts what ../shared/perf/run.sh starts for these rows (the built service, `apps/api/dist/main.js`, on a
// fresh database of the local PostgreSQL server, with the harness's environment; its local upstream), seeds
// the 5 providers × 10 tools server through the management API, then drives, one row after another:
//   GET /servers/{id}     (management API, dev-auth JWT)
//   MCP tools/call        (2026-07-28, server token; upstream called for real)
//   MCP tools/list        (50 tools)
//   upstream directly     (the floor a tools/call cannot go under)
// and one call at a time (c=1) tools/call against the upstream directly: the added median latency.
// CPU per call is robust to other load on the machine (unlike req/s): compare it before and after a change.
// Environment: PG_ADMIN (default postgres://postgres@127.0.0.1:5432/postgres), PERF_DIR (default ../shared/perf),
// ROWS (default get,call,list,c1; `none` for a soak alone), FIRST_CONNS (default 16: connections of the
// SERVERS first-call pass, every server cold as after a restart), FIRST_LIST=1 (that pass also lists every
// server once: the list row then starts with every server's answer learnt), SOAK_MIN (default 0: minutes of soak afterwards,
// see below), SERVICE_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), SERVICE_ENTRY
// (default apps/api/dist/main.js; apps/api/dist/serve.js starts the service without the launcher's memory
// settings, V8's and glibc's defaults, for a before/after), SERVICE_NODE_FLAGS (node flags on the service's
// command line, where the launcher takes them as the operator's, which NODE_OPTIONS refuses: e.g.
// `--max-semi-space-size=16 --heap-growing-percent=50`, with MEMORY_QUIET_COLLECT_MS=0, is the service as it
// was before the memory branch of issue 15). SERVICE_ENTRY may be absolute: another checkout's built service
// (`SERVICE_ENTRY=/work/wt/base/apps/api/dist/main.js`) measured by this script, for a before/after.
// ANSWER_BYTES (e.g. 10240): the upstream answers every call with a JSON list of about that many bytes
// (bench/lib/sized-upstream.mjs) instead of the harness's 56-byte object: response shaping on the wired
// path. HEADER_VARIABLE=1: the called tool sends a header `${<prefix>_KEY}` resolved from a SECRET variable
// on every call (variable resolution, docs/api-rules.md §9 and §23); HEADER_VARIABLE=percaller: the same
// variable marked per caller, with a default and no caller's own value (every call looks the caller's values
// up, then sends the default: §23's resolution with nothing to ask). MCP_ERA=2025-11-25: the MCP rows speak
// the era of today's clients (no standard headers, no `_meta` envelope; answers are one SSE event).
// SERVERS=N (issue 32's many servers, e.g. 10000): N servers of the same 5 × 10 tools, each with its own
// token, and the MCP rows call them round-robin (the tenant's server quota is raised to N); compare the
// rows and the RSS after the run with a run without it. SEED=sql (with SERVERS): the first server is created
// through the API, the N - 1 others cloned from it in SQL (its rows in servers, server_providers, server_tools,
// server_resources and server_prompts, under new ids, and a token each whose hash is stored as the API
// stores it; no revision history rows, which no MCP request reads): seconds instead of minutes of POSTs.
// Each row also prints what the caches missed per call (the service's /metrics, when its build has them:
// compiles, gate memo misses, point-read misses), and the end of the run what the service keeps and V8's heap
// (used of total) and external memory beside its RSS; METRICS_PORT (default: a free port) moves the listener,
// METRICS_PORT=0 turns it off.
// STORE=embedded: the service on its default store, embedded PostgreSQL (PGlite) under its DATA_DIR
// (DATABASE_URL unset, as ../shared/perf/run.sh starts the embedded rows); the database's thread is in the
// service's process, so its CPU is in the service's column, and there is no postgres column.
//
// The soak (the RSS goal: `ROWS=none SOAK_MIN=10 node bench/hot-paths.mjs`): the mix GET /servers/{id},
// tools/call, tools/list, tools/call on every connection (c=16 by default), 10 s of warm-up, 20 s closed-loop
// to measure its peak, then SOAK_SHARE (default 0.8) of that peak at a fixed rate for SOAK_MIN minutes
// (SOAK_WARMUP_S, SOAK_PEAK_S change the first two; SOAK_RPS fixes the rate instead, to compare variants). Prints the service's RSS per minute (mean and highest of
// a sample every 5 s), its JS heap, V8's resident heap pages and external memory (bench/lib/memory-probe.mjs,
// preloaded into the service for the soak), and the growth between the first and the last minute.
import { execFileSync, spawn } from "node:child_process";
import { hash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { cpuMs, rssMiB } from "./lib/service-process.mjs";
import { soak } from "./lib/soak.mjs";

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PERF_DIR = resolve(PROJECT, process.env.PERF_DIR ?? "../shared/perf");
const SECONDS = Number(process.argv[2] ?? 10);
const CONNS = Number(process.argv[3] ?? 16);
const PG_ADMIN = process.env.PG_ADMIN ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DB = `mcpsm_hot_${process.pid}_${Date.now().toString(36)}`;
const EMBEDDED = process.env.STORE === "embedded";
const NODE = process.execPath;
const { apiClient, seedServer } = await import(join(PERF_DIR, "lib/api.mjs"));

const freePort = () =>
  new Promise((done) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
const psql = (sql, db = "postgres") =>
  execFileSync("psql", [PG_ADMIN.replace(/\/[^/]*$/, `/${db}`), "-v", "ON_ERROR_STOP=1", "-At", "-c", sql], {
    encoding: "utf8",
  }).trim();
const cpuSeconds = (pid) => cpuMs(pid) / 1000;
const backendPids = () =>
  psql(`select pid from pg_stat_activity where datname = '${DB}' and pid <> pg_backend_pid()`)
    .split("\n")
    .filter(Boolean)
    .map(Number);
const cpuOf = (pids) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
/**
 * The CPU seconds `pidsOf()` use from now on: the processes there at the end, each counted from its reading now
 * (or from 0 when it started meanwhile). PostgreSQL backends come and go with the pool's connections; summing
 * the processes of the start and of the end separately made a backend that exited count as negative time. One
 * that exits before the end is not counted at all (its time is lost with it).
 */
const cpuFrom = (pidsOf) => {
  const start = new Map(pidsOf().map((pid) => [pid, cpuSeconds(pid)]));
  return () => pidsOf().reduce((sum, pid) => sum + cpuSeconds(pid) - (start.get(pid) ?? 0), 0);
};

// The cache counters of the service's /metrics (cache-metrics.ts); empty when its build has none.
let metricsUrl;
const CACHE_SERIES = {
  compiles: /^mcpsm_mcp_server_compiles_total (\S+)$/m,
  memoMisses: /^mcpsm_mcp_admission_memo_lookups_total\{result="miss"\} (\S+)$/m,
  readMisses: /^mcpsm_read_cache_lookups_total\{result="miss"\} (\S+)$/m,
};
const cacheCounters = async () => {
  if (metricsUrl === undefined) return {};
  try {
    const text = await (await fetch(metricsUrl)).text();
    return Object.fromEntries(
      Object.entries(CACHE_SERIES).map(([k, re]) => [k, Number(re.exec(text)?.[1] ?? Number.NaN)]),
    );
  } catch {
    return {};
  }
};
const gauges = async () => {
  if (metricsUrl === undefined) return "";
  try {
    const text = await (await fetch(metricsUrl)).text();
    const read = (name) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
    const mib = (name) => (read(name) / 2 ** 20).toFixed(1);
    // Where the RSS is: V8's heap (used of total) and the memory outside it that V8 knows of (buffers).
    return `kept: ${read("mcpsm_mcp_compiled_servers")} compiled servers (${(read("mcpsm_mcp_compiled_cache_bytes") / 2 ** 20).toFixed(1)} MiB estimated), ${read("mcpsm_mcp_compiled_tools")} tools, ${read("mcpsm_mcp_shared_answers")} shared answers, ${read("mcpsm_read_cache_entries")} point reads; V8 heap ${mib("nodejs_heap_size_used_bytes")} of ${mib("nodejs_heap_size_total_bytes")} MiB, external ${mib("nodejs_external_memory_bytes")} MiB`;
  } catch {
    return "";
  }
};

// An embedded first start creates and migrates its database: minutes on a busy shared machine.
const READY_TENTHS = EMBEDDED ? 6_000 : 1_200;
const waitFor = async (url, child) => {
  for (let i = 0; i < READY_TENTHS; i++) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await sleep(100);
  }
  throw new Error(`${url} did not answer`);
};

/** `connections` loops sending `make()` requests on keep-alive sockets for `seconds`; latencies in ms. */
const drive = async (port, make, { seconds, connections, check }) => {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let failures = 0;
  const until = Date.now() + seconds * 1000;
  const one = () =>
    new Promise((done) => {
      const { method, path, headers, body } = make();
      const t0 = process.hrtime.bigint();
      const req = request({ host: "127.0.0.1", port, method, path, headers, agent }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const ms = Number(process.hrtime.bigint() - t0) / 1e6;
          if (res.statusCode === 200 && check(Buffer.concat(chunks).toString())) latencies.push(ms);
          else failures++;
          done();
        });
      });
      req.on("error", () => {
        failures++;
        done();
      });
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) await one();
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN;
  return { ok: latencies.length, failures, p50: pct(50), p99: pct(99) };
};

const measure = async (label, port, make, check, { pids, connections = CONNS, seconds = SECONDS }) => {
  await drive(port, make, { seconds: Math.min(3, seconds), connections, check }); // warm-up
  const countersBefore = await cacheCounters();
  const used = Object.fromEntries(Object.entries(pids).map(([k, f]) => [k, cpuFrom(f)]));
  const t0 = Date.now();
  const r = await drive(port, make, { seconds, connections, check });
  const elapsed = (Date.now() - t0) / 1000;
  const cpu = Object.fromEntries(Object.entries(used).map(([k, since]) => [k, (since() * 1000) / Math.max(1, r.ok)]));
  const countersAfter = await cacheCounters();
  const missesPerCall = Object.fromEntries(
    Object.keys(countersBefore).map((k) => [
      k,
      (countersAfter[k] - countersBefore[k]) / Math.max(1, r.ok + r.failures),
    ]),
  );
  const row = {
    label,
    connections,
    rps: r.ok / elapsed,
    p50: r.p50,
    p99: r.p99,
    failures: r.failures,
    cpuMsPerCall: cpu,
    missesPerCall,
  };
  console.error(
    `${label.padEnd(34)} c=${String(connections).padStart(2)} ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  fail ${r.failures}  cpu ms/call ${Object.entries(
      cpu,
    )
      .map(([k, v]) => `${k} ${v.toFixed(3)}`)
      .join(", ")}${
      Object.keys(missesPerCall).length === 0
        ? ""
        : `  misses/call ${Object.entries(missesPerCall)
            .map(([k, v]) => `${k} ${v.toFixed(4)}`)
            .join(", ")}`
    }`,
  );
  return row;
};

const children = [];
const startChild = (args, env) => {
  const child = spawn(NODE, args, {
    cwd: PROJECT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(child);
  return child;
};
const dataDir = mkdtempSync(join(tmpdir(), "mcpsm-hot-"));
// The soak preloads a memory probe into the service (its JS heap beside RSS); the rows run without it.
const soaking = Number(process.env.SOAK_MIN ?? 0) > 0;
const PROBE = join(PROJECT, "bench/lib/memory-probe.mjs");
const probeFile = join(dataDir, "memory-probe.jsonl");
const cleanup = () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
};
process.on("exit", cleanup);

try {
  if (!EMBEDDED) psql(`create database ${DB}`);
  const upstreamPort = await freePort();
  const answerBytes = Number(process.env.ANSWER_BYTES ?? 0);
  const upstream = startChild(
    answerBytes > 0
      ? [join(PROJECT, "bench/lib/sized-upstream.mjs"), String(upstreamPort), String(answerBytes)]
      : [join(PERF_DIR, "servers/upstream.mjs"), String(upstreamPort)],
    {},
  );
  const port = await freePort();
  const metricsPort = process.env.METRICS_PORT ?? String(await freePort());
  if (metricsPort !== "0") metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  // The environment of ../shared/perf/bench.mjs (serviceEnv), on PostgreSQL or (STORE=embedded) embedded.
  const service = startChild(
    [
      ...(process.env.SERVICE_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean),
      resolve(PROJECT, process.env.SERVICE_ENTRY ?? "apps/api/dist/main.js"),
    ],
    {
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "info",
      UPSTREAM_ALLOWED_NETWORKS: "127.0.0.0/8",
      RATE_LIMIT_TENANT_POINTS: "1000000000",
      RATE_LIMIT_TENANT_BURST: "1000000000",
      RATE_LIMIT_ADDRESS_POINTS: "1000000000",
      RATE_LIMIT_ADDRESS_BURST: "1000000000",
      QUOTA_SERVERS_PER_TENANT: String(Math.max(1_000, Number(process.env.SERVERS ?? 1))),
      METRICS_PORT: metricsPort,
      // undefined: not passed on (spawn leaves undefined values out), whatever this process's environment says.
      DATABASE_URL: EMBEDDED ? undefined : PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`),
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      NODE_OPTIONS: [process.env.SERVICE_NODE_OPTIONS ?? "", soaking ? `--import=${PROBE}` : ""].join(" ").trim(),
      ...(soaking ? { MEMORY_PROBE_FILE: probeFile } : {}),
    },
  );
  service.stdout?.resume();
  await waitFor(`http://127.0.0.1:${port}/readyz`, service);
  const token = execFileSync(NODE, [join(PROJECT, "apps/api/dist/cli/token.js"), "--sub", "bench", "--ttl", "86400"], {
    cwd: PROJECT,
    env: { ...process.env, DATA_DIR: dataDir, NODE_OPTIONS: "" },
    encoding: "utf8",
  }).trim();
  const seed = await seedServer(apiClient(`http://127.0.0.1:${port}`, token), {
    upstreamUrl: `http://127.0.0.1:${upstreamPort}`,
  });
  if (process.env.HEADER_VARIABLE === "1" || process.env.HEADER_VARIABLE === "percaller") {
    // The called tool (getP0T0) sends `X-Api-Key: ${<prefix>_KEY}`, a SECRET variable of the tenant.
    const api = apiClient(`http://127.0.0.1:${port}`, token);
    const [link] = seed.links;
    const { provider } = await api.get(`/providers/${link.id}`);
    const name = `${provider.secretPrefix}_KEY`;
    const perCaller = process.env.HEADER_VARIABLE === "percaller" ? { perCaller: true } : {};
    await api.post("/variables", { variable: { type: "SECRET", name, value: "bench-secret", ...perCaller } });
    await api.patch(`/providers/${link.id}/tools/${link.tools[0].id}`, {
      tool: { headers: [{ key: "X-Api-Key", value: `\${${name}}` }] },
    });
  }
  // Many servers: the seed's server first, then N - 1 more of the same links, 16 creations at a time.
  const targets = [{ id: seed.serverId, token: seed.serverToken }];
  const wanted = Number(process.env.SERVERS ?? 1);
  if (wanted > 1 && process.env.SEED === "sql") {
    const started = performance.now();
    const id = () => randomBytes(16).toString("base64url").replace(/[-_]/g, "").padEnd(11, "x").slice(0, 11);
    const rows = [];
    for (let n = 1; n < wanted; n++) {
      const value = `mcps_${randomBytes(24).toString("base64url").replace(/[-_]/g, "x")}`;
      const server = { id: id(), token: value };
      targets.push(server);
      rows.push(`${n}\t${server.id}\t${id()}\t${hash("sha256", value, "hex")}`);
    }
    const columns = (table) =>
      psql(
        `select column_name from information_schema.columns where table_name = '${table}' order by ordinal_position`,
        DB,
      ).split("\n");
    const clone = (table, key, map) => {
      const cols = columns(table);
      const exprs = cols.map((c) => map[c] ?? `x.${c}`);
      return `insert into ${table} (${cols.join(", ")}) select ${exprs.join(", ")} from ${table} x cross join bench_clone c where x.${key} = '${seed.serverId}' order by c.n;`;
    };
    const sql = [
      "begin;",
      "create temp table bench_clone (n int, id text, token_id text, value_hash text) on commit drop;",
      `copy bench_clone from stdin;\n${rows.join("\n")}\n\\.`,
      clone("servers", "id", { id: "c.id", name: "'Bench server ' || c.n" }),
      ...["server_providers", "server_tools", "server_resources", "server_prompts"].map((t) =>
        clone(t, "server_id", { server_id: "c.id" }),
      ),
      clone("server_tokens", "server_id", { id: "c.token_id", server_id: "c.id", value_hash: "c.value_hash" }),
      "commit;",
    ].join("\n");
    execFileSync("psql", [PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`), "-v", "ON_ERROR_STOP=1", "-q"], { input: sql });
    psql("analyze", DB);
    console.error(
      `cloned ${wanted - 1} more servers with a token each in SQL in ${((performance.now() - started) / 1000).toFixed(1)} s; service RSS ${rssMiB(service.pid).toFixed(0)} MiB`,
    );
  } else if (wanted > 1) {
    const api = apiClient(`http://127.0.0.1:${port}`, token);
    const started = performance.now();
    let next = 1;
    const worker = async () => {
      while (next < wanted) {
        const n = next++;
        const { server } = await api.post("/servers", { server: { name: `Bench server ${n}`, providers: seed.links } });
        const { token: minted } = await api.post(`/servers/${server.id}/tokens`, { token: { name: "bench" } });
        targets.push({ id: server.id, token: minted.value });
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    console.error(
      `created ${wanted - 1} more servers with a token each in ${((performance.now() - started) / 1000).toFixed(0)} s; service RSS ${rssMiB(service.pid).toFixed(0)} MiB`,
    );
  }
  let turn = 0;
  const pids = EMBEDDED ? { service: () => [service.pid] } : { service: () => [service.pid], postgres: backendPids };
  let id = 1;
  const legacy = process.env.MCP_ERA === "2025-11-25";
  const rpc = (message, method) => () => {
    const target = targets[turn++ % targets.length];
    return {
      method: "POST",
      path: `/mcp/${target.id}`,
      headers: {
        Authorization: `Bearer ${target.token}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...(legacy
          ? { "MCP-Protocol-Version": "2025-11-25" }
          : {
              "MCP-Protocol-Version": "2026-07-28",
              "Mcp-Method": method,
              ...(method === "tools/call" ? { "Mcp-Name": "getP0T0" } : {}),
            }),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: id++, ...message }),
    };
  };
  const meta = legacy
    ? undefined
    : {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      };
  const call = rpc(
    {
      method: "tools/call",
      params: { name: "getP0T0", arguments: { pathArgs: { id: "42" }, queryArgs: { verbose: true } }, _meta: meta },
    },
    "tools/call",
  );
  const okCall = (b) => b.includes("widget") && !b.includes('"isError":true');
  const list = rpc({ method: "tools/list", params: { _meta: meta } }, "tools/list");
  if (targets.length > 1) {
    // Every server's first call (its compile: what a restart costs), 16 at a time, before the rows.
    const countersBefore = await cacheCounters();
    const pgUsed = cpuFrom(backendPids);
    const cpuBefore = cpuOf([service.pid]);
    const started = performance.now();
    let k = 0;
    const first = async () => {
      while (k < targets.length) {
        k++;
        const { path, headers, body } = call();
        const answer = await fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", headers, body });
        const text = await answer.text();
        if (!okCall(text)) throw new Error(`a first call failed: ${answer.status} ${text.slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: Number(process.env.FIRST_CONNS ?? 16) }, first));
    if (process.env.FIRST_LIST === "1") {
      // Every server listed once too (each keeps its learnt tools/list answer), so that the list row starts
      // from a full cache rather than taking a whole round (minutes at 10,000 servers) to fill it.
      let l = 0;
      const listOnce = async () => {
        while (l < targets.length) {
          l++;
          const { path, headers, body } = list();
          const answer = await fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", headers, body });
          const text = await answer.text();
          if (!text.includes("getP4T9")) throw new Error(`a first list failed: ${answer.status} ${text.slice(0, 300)}`);
        }
      };
      await Promise.all(Array.from({ length: Number(process.env.FIRST_CONNS ?? 16) }, listOnce));
    }
    const countersAfter = await cacheCounters();
    // What a restart costs: every server cold. Counted misses say whether anything was read or compiled twice.
    const counted = Object.keys(countersBefore)
      .map((key) => `${key} ${((countersAfter[key] - countersBefore[key]) / targets.length).toFixed(2)}`)
      .join(", ");
    console.error(
      `first call of each of ${targets.length} servers: ${((performance.now() - started) / 1000).toFixed(1)} s, service ${(((cpuOf([service.pid]) - cpuBefore) * 1000) / targets.length).toFixed(2)} ms CPU a server, PostgreSQL ${((pgUsed() * 1000) / targets.length).toFixed(2)} ms; RSS ${rssMiB(service.pid).toFixed(0)} MiB${counted === "" ? "" : `; per server: ${counted}`}`,
    );
  }
  const get = () => ({
    method: "GET",
    path: `/servers/${seed.serverId}`,
    headers: { Authorization: `Bearer ${token}` },
  });
  const direct = () => ({
    method: "GET",
    path: "/p0/t0/items/42?verbose=true",
    headers: { Accept: "application/json" },
  });
  const rows = [];
  const want = new Set((process.env.ROWS ?? "get,call,list,c1").split(","));
  if (want.has("get")) rows.push(await measure("GET /servers/{id}", port, get, (b) => b.includes("getP4T9"), { pids }));
  if (want.has("call"))
    rows.push(
      await measure("MCP tools/call", port, call, okCall, { pids: { ...pids, upstream: () => [upstream.pid] } }),
    );
  if (want.has("list")) {
    rows.push(await measure("MCP tools/list (50 tools)", port, list, (b) => b.includes("getP4T9"), { pids }));
    const { path, headers, body } = list();
    const answer = await fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", headers, body });
    console.error(`one tools/list answer: ${(await answer.arrayBuffer()).byteLength} bytes`);
  }
  let addedMedianMs;
  if (want.has("c1")) {
    const directC1 = await measure("upstream directly", upstreamPort, direct, okCall, {
      pids: { upstream: () => [upstream.pid] },
      connections: 1,
    });
    const callC1 = await measure("MCP tools/call", port, call, okCall, { pids, connections: 1 });
    rows.push(directC1, callC1);
    addedMedianMs = callC1.p50 - directC1.p50;
    console.error(`added median latency of tools/call over the upstream at c=1: ${addedMedianMs.toFixed(3)} ms`);
  }
  console.error(`service RSS after the run: ${rssMiB(service.pid).toFixed(0)} MiB; ${await gauges()}`);
  // Soak (bench/lib/soak.mjs): the mix at 80% of its measured peak for SOAK_MIN minutes, RSS per minute and
  // its growth between the first and the last minute, which is what the RSS goal bounds.
  let soakResult;
  if (soaking) {
    // Each connection cycles through the mix: tools/call half of the requests, GET and tools/list a quarter each.
    const entry = (make) => {
      const { method, path, headers, body } = make();
      return {
        method,
        path,
        headers,
        ...(body !== undefined ? { setupRequest: (req) => ({ ...req, body: make().body }) } : {}),
      };
    };
    soakResult = await soak({
      perfDir: PERF_DIR,
      url: `http://127.0.0.1:${port}`,
      requests: [entry(get), entry(call), entry(list), entry(call)],
      verifyBody: (b) =>
        !b.includes('"isError":true') && !b.includes('"error":') && (b.includes("widget") || b.includes("getP4T9")),
      connections: CONNS,
      minutes: Number(process.env.SOAK_MIN),
      pid: service.pid,
      rssMiB,
      cpuSeconds,
      probeFile,
      warmupS: Number(process.env.SOAK_WARMUP_S ?? 10),
      peakS: Number(process.env.SOAK_PEAK_S ?? 20),
      share: Number(process.env.SOAK_SHARE ?? 0.8),
      fixedRps: process.env.SOAK_RPS === undefined ? undefined : Number(process.env.SOAK_RPS),
    });
  }
  console.log(JSON.stringify({ rows, addedMedianMs, rssMiB: rssMiB(service.pid), soak: soakResult }));
} finally {
  cleanup();
  await sleep(500);
  try {
    if (!EMBEDDED) psql(`drop database if exists ${DB} with (force)`);
  } catch {}
  rmSync(dataDir, { recursive: true, force: true });
}
