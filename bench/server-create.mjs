// POST /servers with 5 providers × 10 tools (explicit tool ids): SQL statements per write, CPU per write of
// the service and of PostgreSQL, and req/s.
//
//   ./run build && node bench/server-create.mjs [connections=16] [seconds=8]
//
// Environment: PG_ADMIN (default postgres://postgres@127.0.0.1:5432/postgres; a throwaway database is created
// and dropped; psql must be on the PATH); PROFILE_DIR (write a CPU profile of the service there); WRITE=patch
// (the load is PATCH /servers/{id} with a new description instead, spread over `connections` × 4 servers of
// 5×10 made before the warm-up, so that concurrent writes seldom wait for one server's lock); WRITE=variable
// (PATCH /variables/{id} of `connections` × 4 SECRET variables with a new value); STORE=embedded (part 2 runs
// the service on its embedded default store, PGlite on a thread of the service's process, instead of the
// database: its CPU per write then includes the database's, split into the main thread's and the database
// thread's, and there is no postgres column); STORE=both (part 2 on the database, then on the embedded store,
// and the ratio of their req/s in this run).
//
// 1. Statements: the service in this process on a storage whose driver hook counts every statement sent
//    (BEGIN and COMMIT included); 20 writes one after another; prints the count per write and one write's
//    statements. Independent of the machine's load.
// 2. Load: the built service as a child process (LOG_LEVEL=info to /dev/null, as in production) on the same
//    database; `connections` clients POST servers with distinct names for a warm-up and `seconds`; prints
//    req/s, p50/p99 and CPU ms per write of the service and of its PostgreSQL backends.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { localConfig } from "@mcpsm/api/dist/config/local-config.js";
import { startService } from "@mcpsm/api/dist/service.js";
import { makePostgresStorage } from "@mcpsm/storage-postgres";
import pino from "pino";
import { closedLoop, ms } from "./lib/closed-loop.mjs";
import { apiClient, newEncryptionKey, startServiceProcess } from "./lib/service-process.mjs";
import { seedProviderLinks } from "./lib/seed.mjs";

const CONNECTIONS = Number(process.argv[2] ?? 16);
const SECONDS = Number(process.argv[3] ?? 8);
const PG_ADMIN = process.env.PG_ADMIN ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DB = `mcpsm_bench_write_${randomBytes(4).toString("hex")}`;
const dbUrl = PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`);
const psql = (url, sql) =>
  execFileSync("psql", [url, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql], { encoding: "utf8" }).trim();

const STORE = process.env.STORE ?? "postgres";
const WRITE = process.env.WRITE ?? "post";

/** The service's threads by name (/proc/<pid>/task/<tid>/comm), as cpuMs() ids: "<pid>/task/<tid>". */
const threadsNamed = (pid, name) =>
  readdirSync(`/proc/${pid}/task`)
    .filter((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim() === name)
    .map((tid) => `${pid}/task/${tid}`);

/** Runs the closed-loop load on the service as a child process on `store`; prints and answers its req/s. */
const loadRun = async (store, links) => {
  const embedded = store === "embedded";
  child = await startServiceProcess({
    dataDir: embedded ? join(dataDir, "embedded") : dataDir,
    env: embedded ? {} : { DATABASE_URL: dbUrl, ENCRYPTION_KEY: newEncryptionKey() },
    // PROFILE_DIR=<dir>: a V8 CPU profile of the service is written there when it stops.
    nodeOptions: process.env.PROFILE_DIR ? `--cpu-prof --cpu-prof-dir=${process.env.PROFILE_DIR}` : "",
  });
  const loadToken = child.token("bench");
  const loadApi = apiClient(child.url, loadToken);
  // The embedded store is a database of its own: its providers are seeded there.
  const loadLinks = embedded ? await seedProviderLinks(loadApi) : links;
  const pid = child.pid;
  const backends = () =>
    embedded
      ? []
      : psql(PG_ADMIN, `select pid from pg_stat_activity where datname = '${DB}' and pid <> pg_backend_pid()`)
          .split("\n")
          .filter(Boolean)
          .map(Number);
  let serial = 0;
  const headers = { Authorization: `Bearer ${loadToken}`, "Content-Type": "application/json" };
  const targets = [];
  // Spread over `connections` × 4 targets, so that concurrent writes seldom wait for one row's lock.
  for (let n = 0; WRITE !== "post" && n < CONNECTIONS * 4; n++)
    targets.push(
      WRITE === "variable"
        ? (
            await loadApi("POST", "/variables", {
              variable: { type: "SECRET", name: `SECRET_${store.toUpperCase()}_${n}`, value: "first" },
            })
          ).variable.id
        : (await loadApi("POST", "/servers", { server: { name: `patched ${n}`, providers: loadLinks } })).server.id,
    );
  const label = {
    post: "POST /servers (5×10)",
    patch: "PATCH /servers/{id} (5×10, description)",
    variable: "PATCH /variables/{id} (SECRET, value)",
  }[WRITE];
  const target = () => targets[serial % targets.length];
  const next = () => {
    const n = serial++;
    if (WRITE === "patch")
      return {
        method: "PATCH",
        path: `/servers/${target()}`,
        headers,
        body: JSON.stringify({ server: { description: `load ${n}` } }),
      };
    if (WRITE === "variable")
      return {
        method: "PATCH",
        path: `/variables/${target()}`,
        headers,
        body: JSON.stringify({ variable: { value: `value ${n}` } }),
      };
    return {
      method: "POST",
      path: "/servers",
      headers,
      body: JSON.stringify({ server: { name: `load ${store} ${n}`, providers: loadLinks } }),
    };
  };
  // Embedded: the service's main thread and the database's thread (named "pglite") besides the whole process.
  const threads = embedded
    ? { "main thread": () => [`${pid}/task/${pid}`], "database thread": () => threadsNamed(pid, "pglite") }
    : {};
  const load = loadavg()[0].toFixed(1);
  const result = await closedLoop({
    url: child.url,
    next,
    connections: CONNECTIONS,
    warmupMs: 2000,
    durationMs: SECONDS * 1000,
    cpu: { service: () => [pid], postgres: backends, ...threads },
  });
  const perWrite = result.cpuMsPerRequest;
  console.log(
    `\n${label} on ${store}, c=${CONNECTIONS}: ${result.rps.toFixed(0)} req/s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms; ` +
      `CPU per write: service ${ms(perWrite.service)} ms` +
      (embedded
        ? ` (main thread ${ms(perWrite["main thread"])} ms, database thread ${ms(perWrite["database thread"])} ms)`
        : `, postgres ${ms(perWrite.postgres)} ms`),
  );
  const cpuBound = embedded
    ? 1000 / Math.max(perWrite["main thread"], perWrite["database thread"])
    : 1000 / Math.max(perWrite.service, perWrite.postgres || 0);
  console.log(
    `writes/s if each ${embedded ? "thread" : "process"} had a core of its own (1000 / the larger CPU per write): ` +
      `${cpuBound.toFixed(0)}; load average ${load} at the start, ${loadavg()[0].toFixed(1)} at the end`,
  );
  return result.rps;
};

psql(PG_ADMIN, `create database ${DB}`);
const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-write-"));
let child;
try {
  // 1. Statements per write, counted at the driver.
  const sent = [];
  let counting = false;
  const storage = await makePostgresStorage({
    url: dbUrl,
    poolSize: 4,
    onStatement: (sql) => {
      if (counting) sent.push(sql);
    },
  });
  await storage.migrate();
  const service = await startService(localConfig(dataDir), {
    storage: storage.layer,
    onClose: () => storage.close(),
    logger: pino({ level: "silent" }),
  });
  const token = await mintDevToken(dataDir, { subject: "bench" });
  const api = apiClient(service.url, token);
  const links = await seedProviderLinks(api);
  const perWrite = [];
  let example = [];
  for (let n = 0; n < 20; n++) {
    sent.length = 0;
    counting = true;
    await api("POST", "/servers", { server: { name: `counted ${n}`, providers: links } });
    counting = false;
    perWrite.push(sent.length);
    if (n === 0 || sent.length > perWrite[0]) example = [...sent];
  }
  await service.close();
  const compact = (sql) => sql.replace(/\s+/g, " ").slice(0, 110);
  console.log(
    `statements per POST /servers (5×10): ${Math.min(...perWrite)}–${Math.max(...perWrite)} (${perWrite.join(" ")})`,
  );
  for (const sql of example) console.log(`  ${compact(sql)}`);

  // 2. Load, with the service as a child process on the same database and data directory (same dev key);
  // STORE=both: on the database, then on the embedded store, and the ratio of the two.
  const stores = STORE === "both" ? ["postgres", "embedded"] : [STORE === "embedded" ? "embedded" : "postgres"];
  const rates = {};
  for (const store of stores) {
    rates[store] = await loadRun(store, links);
    await child.stop();
    child = undefined;
  }
  if (STORE === "both")
    console.log(`\nembedded / PostgreSQL req/s in this run: ${(rates.embedded / rates.postgres).toFixed(2)}`);
} finally {
  await child?.stop();
  psql(PG_ADMIN, `drop database if exists ${DB} with (force)`);
  await rm(dataDir, { recursive: true, force: true });
}
