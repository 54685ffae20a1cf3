// Where an embedded write's CPU goes, by thread: the service in this process on the embedded store (PGlite on
// its own thread, packages/storage-postgres/src/embedded-thread.ts); N POST /servers (5 providers × 10 tools)
// one after another after a warm-up. Prints, per write: wall time, process CPU (the bench's HTTP client
// included), the main thread's CPU (the service and the client) and the database thread's (PGlite).
// (Before PGlite had a thread of its own this bench also timed each statement inside PGlite; that hook ran
// on the main thread and is gone with it.)
//
//   ./run build && node bench/embedded-write-statements.mjs [writes=100]
//
// WRITE=patch: PATCH /servers/{id} with a new description instead; WRITE=variable: PATCH /variables/{id} of a
// SECRET variable with a new value. TEMPLATE=<dir>: a migrated embedded data directory is kept there and
// copied for the next runs (creating one takes a minute on a loaded machine).
import { existsSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { localConfig } from "@mcpsm/api/dist/config/local-config.js";
import { startService } from "@mcpsm/api/dist/service.js";
import { makePostgresStorage, startEmbeddedPostgres } from "@mcpsm/storage-postgres";
import pino from "pino";
import { apiClient } from "./lib/service-process.mjs";
import { seedProviderLinks } from "./lib/seed.mjs";

const WRITES = Number(process.argv[2] ?? 100);
const WRITE = process.env.WRITE ?? "post";

const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-embedded-writes-"));
const template = process.env.TEMPLATE;
if (template !== undefined && existsSync(join(template, "PG_VERSION")))
  await cp(template, join(dataDir, "pgdata"), { recursive: true });
const embedded = await startEmbeddedPostgres(join(dataDir, "pgdata"));
// EMBEDDED_STREAM=off: the adapter reaches PGlite over loopback TCP (the gate, pglite-socket), as before the
// in-process stream, for a before/after in one build.
const { stream, ...overTcp } = embedded.storageOptions;
const storage = await makePostgresStorage({
  ...(process.env.EMBEDDED_STREAM === "off" ? overTcp : { ...overTcp, stream }),
  readCache: { listen: false },
});
try {
  await storage.migrate();
  if (template !== undefined && !existsSync(join(template, "PG_VERSION"))) {
    await storage.close();
    await embedded.stop();
    await cp(join(dataDir, "pgdata"), template, { recursive: true });
    console.log(`kept a migrated data directory in ${template}; run again`);
    process.exit(0);
  }
  const service = await startService(localConfig(dataDir), {
    storage: storage.layer,
    logger: pino({ level: "silent" }),
  });
  try {
    const api = apiClient(service.url, await mintDevToken(dataDir, { subject: "bench" }));
    const links = await seedProviderLinks(api);
    let serial = 0;
    const servers = [];
    const variables = [];
    if (WRITE === "patch")
      for (let n = 0; n < 8; n++)
        servers.push((await api("POST", "/servers", { server: { name: `patched ${n}`, providers: links } })).server.id);
    if (WRITE === "variable")
      for (let n = 0; n < 8; n++)
        variables.push(
          (await api("POST", "/variables", { variable: { type: "SECRET", name: `SECRET_${n}`, value: "first" } }))
            .variable.id,
        );
    const write = () => {
      serial++;
      if (WRITE === "patch")
        return api("PATCH", `/servers/${servers[serial % servers.length]}`, {
          server: { description: `load ${serial}` },
        });
      if (WRITE === "variable")
        return api("PATCH", `/variables/${variables[serial % variables.length]}`, {
          variable: { value: `value ${serial}` },
        });
      return api("POST", "/servers", { server: { name: `load ${serial}`, providers: links } });
    };
    for (let n = 0; n < Math.max(30, WRITES / 2); n++) await write();
    // A build from before the database's thread has no threadCpuUsage: PGlite ran on the main thread then.
    const databaseCpu = async () => (await embedded.threadCpuUsage?.()) ?? { user: 0, system: 0 };
    const cpu = process.cpuUsage();
    const main = process.threadCpuUsage();
    const database = await databaseCpu();
    const started = performance.now();
    for (let n = 0; n < WRITES; n++) await write();
    const wall = performance.now() - started;
    const msOf = (used) => (used.user + used.system) / 1000;
    const databaseMs = msOf(await databaseCpu()) - msOf(database);
    const perWrite = (total) => (total / WRITES).toFixed(2);
    console.log(
      `${WRITE} ×${WRITES}: wall ${perWrite(wall)} ms, process CPU ${perWrite(msOf(process.cpuUsage(cpu)))} ms ` +
        `(client included), main thread ${perWrite(msOf(process.threadCpuUsage(main)))} ms, ` +
        `database thread ${perWrite(databaseMs)} ms per write; load average ${loadavg()[0].toFixed(1)}`,
    );
  } finally {
    await service.close();
  }
} finally {
  await storage.close();
  await embedded.stop();
  await rm(dataDir, { recursive: true, force: true });
}
