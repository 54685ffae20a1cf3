// POST /servers with 5 providers × 10 tools (explicit tool ids): SQL statements per write, CPU per write of
// the service and of PostgreSQL, and req/s.
//
//   ./run build && node bench/server-create.mjs [connections=16] [seconds=8]
//
// Environment: PG_ADMIN (default postgres://postgres@127.0.0.1:5432/postgres; a throwaway database is created
// and dropped; psql must be on the PATH); PROFILE_DIR (write a CPU profile of the service there); WRITE=patch
// (the load is PATCH /servers/{id} with a new description instead, spread over `connections` × 4 servers of
// 5×10 made before the warm-up, so that concurrent writes seldom wait for one server's lock); STORE=embedded
// (part 2 runs the service on its embedded default store, PGlite in its own process, instead of the
// database: its CPU per write then includes the database's, and there is no postgres column).
//
// 1. Statements: the service in this process on a storage whose driver hook counts every statement sent
//    (BEGIN and COMMIT included); 20 writes one after another; prints the count per write and one write's
//    statements. Independent of the machine's load.
// 2. Load: the built service as a child process (LOG_LEVEL=info to /dev/null, as in production) on the same
//    database; `connections` clients POST servers with distinct names for a warm-up and `seconds`; prints
//    req/s, p50/p99 and CPU ms per write of the service and of its PostgreSQL backends.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
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

  // 2. Load, with the service as a child process on the same database and data directory (same dev key).
  const embedded = process.env.STORE === "embedded";
  child = await startServiceProcess({
    dataDir: embedded ? join(dataDir, "embedded") : dataDir,
    env: embedded ? {} : { DATABASE_URL: dbUrl, ENCRYPTION_KEY: newEncryptionKey() },
    // PROFILE_DIR=<dir>: a V8 CPU profile of the service is written there when it stops.
    nodeOptions: process.env.PROFILE_DIR ? `--cpu-prof --cpu-prof-dir=${process.env.PROFILE_DIR}` : "",
  });
  const loadToken = child.token("bench");
  // The embedded store is a database of its own: its providers are seeded there.
  const loadLinks = embedded ? await seedProviderLinks(apiClient(child.url, loadToken)) : links;
  const backends = () =>
    embedded
      ? []
      : psql(PG_ADMIN, `select pid from pg_stat_activity where datname = '${DB}' and pid <> pg_backend_pid()`)
          .split("\n")
          .filter(Boolean)
          .map(Number);
  let serial = 0;
  const headers = { Authorization: `Bearer ${loadToken}`, "Content-Type": "application/json" };
  const patching = process.env.WRITE === "patch";
  const patched = [];
  if (patching) {
    const loadApi = apiClient(child.url, loadToken);
    for (let n = 0; n < CONNECTIONS * 4; n++)
      patched.push(
        (await loadApi("POST", "/servers", { server: { name: `patched ${n}`, providers: loadLinks } })).server.id,
      );
  }
  const label = patching ? "PATCH /servers/{id} (5×10, description)" : "POST /servers (5×10)";
  const result = await closedLoop({
    url: child.url,
    next: () =>
      patching
        ? {
            method: "PATCH",
            path: `/servers/${patched[serial % patched.length]}`,
            headers,
            body: JSON.stringify({ server: { description: `load ${serial++}` } }),
          }
        : {
            method: "POST",
            path: "/servers",
            headers,
            body: JSON.stringify({ server: { name: `load ${serial++}`, providers: loadLinks } }),
          },
    connections: CONNECTIONS,
    warmupMs: 2000,
    durationMs: SECONDS * 1000,
    cpu: { service: () => [child.pid], postgres: backends },
  });
  console.log(
    `\n${label}, c=${CONNECTIONS}: ${result.rps.toFixed(0)} req/s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms; ` +
      `CPU per write: service ${ms(result.cpuMsPerRequest.service)} ms, postgres ${ms(result.cpuMsPerRequest.postgres)} ms`,
  );
  const cpuBound = 1000 / Math.max(result.cpuMsPerRequest.service, result.cpuMsPerRequest.postgres || 0);
  console.log(
    `writes/s if each process had a core of its own (1000 / the larger CPU per write): ${cpuBound.toFixed(0)}; ` +
      `load average ${(await import("node:os")).loadavg()[0].toFixed(1)}`,
  );
} finally {
  await child?.stop();
  psql(PG_ADMIN, `drop database if exists ${DB} with (force)`);
  await rm(dataDir, { recursive: true, force: true });
}
