// Where an embedded write's time goes, statement by statement: the service in this process on the embedded
// store (PGlite), every message PGlite executes timed (the main thread's CPU time during its synchronous
// run) and grouped by statement; N POST /servers (5 providers × 10 tools) one after another after a warm-up. Prints, per write: process CPU, PGlite's share, and each statement's count and time.
//
//   ./run build && node bench/embedded-write-statements.mjs [writes=100]
//
// WRITE=patch: PATCH /servers/{id} with a new description instead; WRITE=variable: PATCH /variables/{id} of a
// SECRET variable with a new value. TEMPLATE=<dir>: a migrated embedded data directory is kept there and
// copied for the next runs (creating one takes a minute on a loaded machine).
import { existsSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { localConfig } from "@mcpsm/api/dist/config/local-config.js";
import { startService } from "@mcpsm/api/dist/service.js";
import { makePostgresStorage, startEmbeddedPostgres } from "@mcpsm/storage-postgres";
import pino from "pino";
import { apiClient } from "./lib/service-process.mjs";
import { seedProviderLinks } from "./lib/seed.mjs";

const WRITES = Number(process.argv[2] ?? 100);
const WRITE = process.env.WRITE ?? "post";

// PGlite as the storage package loads it (same module instance).
const storageRequire = createRequire(createRequire(import.meta.url).resolve("@mcpsm/storage-postgres"));
const { PGlite } = await import(
  pathToFileURL(storageRequire.resolve("@electric-sql/pglite").replace(/\.cjs$/, ".js")).href
);

/** The statements of a protocol message: Q (simple query) and P (parse) texts; else the message types. */
const describe = (message) => {
  const parts = [];
  const types = [];
  let offset = 0;
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const cstring = (at) => {
    let end = at;
    while (message[end] !== 0) end++;
    return [Buffer.from(message.subarray(at, end)).toString("utf8"), end + 1];
  };
  while (offset + 5 <= message.length) {
    const type = String.fromCharCode(message[offset]);
    const length = view.getInt32(offset + 1);
    types.push(type);
    if (type === "Q") {
      const [text] = cstring(offset + 5);
      for (const s of text.split(/;\n/)) parts.push(`Q ${s.replace(/\s+/g, " ").slice(0, 90)}`);
    } else if (type === "P") {
      const [name, next] = cstring(offset + 5);
      const [text] = cstring(next);
      parts.push(`P${name ? `[${name}]` : ""} ${text.replace(/\s+/g, " ").slice(0, 90)}`);
    }
    offset += 1 + length;
  }
  return parts.length > 0 ? parts.join(" | ") : types.join("");
};

const timings = new Map();
let pgliteMs = 0;
let recording = false;
const original = PGlite.prototype.execProtocolRawSync;
PGlite.prototype.execProtocolRawSync = function (message) {
  if (!recording) return original.call(this, message);
  const started = process.threadCpuUsage();
  try {
    return original.call(this, message);
  } finally {
    const used = process.threadCpuUsage(started);
    const ms = (used.user + used.system) / 1000;
    pgliteMs += ms;
    const key = describe(message);
    const t = timings.get(key) ?? { n: 0, ms: 0 };
    t.n++;
    t.ms += ms;
    timings.set(key, t);
  }
};

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
    recording = true;
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let n = 0; n < WRITES; n++) await write();
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    recording = false;
    const cpuMs = (used.user + used.system) / 1000;
    console.log(
      `${WRITE} ×${WRITES}: wall ${(wall / WRITES).toFixed(2)} ms, process CPU ${(cpuMs / WRITES).toFixed(2)} ms ` +
        `(client included), PGlite ${(pgliteMs / WRITES).toFixed(2)} ms per write`,
    );
    for (const [key, t] of [...timings].sort((a, b) => b[1].ms - a[1].ms))
      console.log(
        `${(t.ms / WRITES).toFixed(3).padStart(7)} ms ${(t.n / WRITES).toFixed(1).padStart(4)}× ${key.slice(0, 400)}`,
      );
  } finally {
    await service.close();
  }
} finally {
  await storage.close();
  await embedded.stop();
  await rm(dataDir, { recursive: true, force: true });
}
