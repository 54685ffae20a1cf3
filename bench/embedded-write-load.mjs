// Concurrent embedded writes, for A/B between builds: the service of the checkout at ROOT (argv[2], built) in
// this process on PGlite (a copy of one migrated data directory, /tmp/embw/template, made by the first run),
// `connections` clients in a closed loop; CPU per write of the main thread, the database thread and the
// process (the client included), and req/s. WRITE=variable: PATCH /variables/{id} (SECRET) instead of
// POST /servers (5×10); the service keeps its default rate limits, which PATCH at full speed reaches.
//
//   node bench/embedded-write-load.mjs /work/main 16 8   (then the same with this checkout)
import { cp, mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
const ROOT = process.argv[2];
const C = Number(process.argv[3] ?? 16);
const SECONDS = Number(process.argv[4] ?? 8);
const WRITE = process.env.WRITE ?? "post";
const TEMPLATE = "/tmp/embw/template";
const req = createRequire(join(ROOT, "bench/package.json"));
const { mintDevToken } = await import(join(ROOT, "apps/api/dist/auth/dev-auth.js"));
const { localConfig } = await import(join(ROOT, "apps/api/dist/config/local-config.js"));
const { startService } = await import(join(ROOT, "apps/api/dist/service.js"));
const { makePostgresStorage, startEmbeddedPostgres } = await import(
  join(ROOT, "packages/storage-postgres/dist/index.js")
);
const pino = (await import(req.resolve("pino"))).default;
const { apiClient } = await import(join(ROOT, "bench/lib/service-process.mjs"));
const { seedProviderLinks } = await import(join(ROOT, "bench/lib/seed.mjs"));
const { closedLoop } = await import(join(ROOT, "bench/lib/closed-loop.mjs"));
const dataDir = await mkdtemp(join(tmpdir(), "embw-conc-"));
if (existsSync(join(TEMPLATE, "PG_VERSION"))) await cp(TEMPLATE, join(dataDir, "pgdata"), { recursive: true });
const embedded = await startEmbeddedPostgres(join(dataDir, "pgdata"));
const storage = await makePostgresStorage({ ...embedded.storageOptions, readCache: { listen: false } });
try {
  await storage.migrate();
  if (!existsSync(join(TEMPLATE, "PG_VERSION"))) {
    await storage.close();
    await embedded.stop();
    await cp(join(dataDir, "pgdata"), TEMPLATE, { recursive: true });
    console.log("template kept; run again");
    process.exit(0);
  }
  const service = await startService(localConfig(dataDir), {
    storage: storage.layer,
    logger: pino({ level: "silent" }),
  });
  try {
    const token = await mintDevToken(dataDir, { subject: "bench" });
    const api = apiClient(service.url, token);
    const links = await seedProviderLinks(api);
    const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const targets = [];
    if (WRITE === "variable")
      for (let n = 0; n < C * 4; n++)
        targets.push(
          (await api("POST", "/variables", { variable: { type: "SECRET", name: `SECRET_${n}`, value: "first" } }))
            .variable.id,
        );
    let serial = 0;
    const next = () => {
      const n = serial++;
      if (WRITE === "variable")
        return {
          method: "PATCH",
          path: `/variables/${targets[n % targets.length]}`,
          headers,
          body: JSON.stringify({ variable: { value: `value ${n}` } }),
        };
      return {
        method: "POST",
        path: "/servers",
        headers,
        body: JSON.stringify({ server: { name: `load ${n}`, providers: links } }),
      };
    };
    const msOf = (u) => (u.user + u.system) / 1000;
    // Warm-up inside closedLoop; CPU by thread measured around a second closed loop (same settings).
    await closedLoop({ url: service.url, next, connections: C, warmupMs: 1500, durationMs: 1000 });
    const load0 = loadavg()[0];
    const main0 = process.threadCpuUsage();
    const db0 = await embedded.threadCpuUsage();
    const p0 = process.cpuUsage();
    const r = await closedLoop({ url: service.url, next, connections: C, warmupMs: 0, durationMs: SECONDS * 1000 });
    const main = msOf(process.threadCpuUsage(main0));
    const db = msOf(await embedded.threadCpuUsage()) - msOf(db0);
    const proc = msOf(process.cpuUsage(p0));
    const n = r.requests ?? Math.round(r.rps * SECONDS);
    console.log(
      `${ROOT} ${WRITE} c=${C}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms; per write: main thread ${(main / n).toFixed(2)} ms, database thread ${(db / n).toFixed(2)} ms, process ${(proc / n).toFixed(2)} ms (client incl.); load ${load0.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`,
    );
  } finally {
    await service.close();
  }
} finally {
  await storage.close();
  await embedded.stop();
  await rm(dataDir, { recursive: true, force: true });
}
