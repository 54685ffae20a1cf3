// Server revisions (docs/api-rules.md §21): what recording a revision in every server write costs, and what a
// revision weighs.
//
//   ./run build && node bench/server-revisions.mjs [writes=40]
//
// Environment: PG_ADMIN (default postgres://postgres@127.0.0.1:5432/postgres; a throwaway database is created
// and dropped; psql must be on the PATH).
//
// The service runs in this process on a PostgreSQL storage whose driver hook counts every statement and round
// trip sent (BEGIN and COMMIT included). With the 5 providers × 10 tools seed of the other write benches:
// `writes` POST /servers (5×10) and `writes` PATCH /servers/{id} (a new description), one after another; prints
// statements per write and the p50/p90 latency of each. Statement counts do not depend on the machine's load;
// latencies do (read them as upper bounds on a shared machine). Then the bytes of one revision of a 5×10
// server: the stored jsonb of its document and content (pg_column_size, after TOAST compression) and the
// document as JSON text. Run the same file from a checkout without revisions for the "before" numbers (the
// revision lines then say so).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { localConfig } from "@mcpsm/api/dist/config/local-config.js";
import { startService } from "@mcpsm/api/dist/service.js";
import { makePostgresStorage } from "@mcpsm/storage-postgres";
import pino from "pino";
import { apiClient } from "./lib/service-process.mjs";
import { seedProviderLinks } from "./lib/seed.mjs";

const WRITES = Number(process.argv[2] ?? 40);
const PG_ADMIN = process.env.PG_ADMIN ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DB = `mcpsm_bench_revisions_${randomBytes(4).toString("hex")}`;
const dbUrl = PG_ADMIN.replace(/\/[^/]*$/, `/${DB}`);
const psql = (url, sql) =>
  execFileSync("psql", [url, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql], { encoding: "utf8" }).trim();
const quantile = (values, q) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const ms = (value) => value.toFixed(2);

psql(PG_ADMIN, `create database ${DB}`);
const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-revisions-"));
try {
  let counting = false;
  let statements = 0;
  const storage = await makePostgresStorage({
    url: dbUrl,
    poolSize: 4,
    onStatement: () => {
      if (counting) statements++;
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

  /** Runs `write` WRITES times (after 5 unmeasured), answering statements per write and latencies in ms. */
  const measure = async (write) => {
    for (let n = 0; n < 5; n++) await write(`warm ${n}`);
    const counts = [];
    const latencies = [];
    for (let n = 0; n < WRITES; n++) {
      statements = 0;
      counting = true;
      const started = performance.now();
      await write(`measured ${n}`);
      latencies.push(performance.now() - started);
      counting = false;
      counts.push(statements);
    }
    return { counts, latencies };
  };
  const report = (label, { counts, latencies }) =>
    console.log(
      `${label}: statements per write ${Math.min(...counts)}–${Math.max(...counts)}; ` +
        `p50 ${ms(quantile(latencies, 0.5))} ms, p90 ${ms(quantile(latencies, 0.9))} ms (${WRITES} writes, one at a time)`,
    );

  let serial = 0;
  report(
    "POST /servers (5×10)",
    await measure((name) => api("POST", "/servers", { server: { name: `${name} ${serial++}`, providers: links } })),
  );
  const { server } = await api("POST", "/servers", { server: { name: "patched", providers: links } });
  report(
    "PATCH /servers/{id} (5×10, description)",
    await measure((name) => api("PATCH", `/servers/${server.id}`, { server: { description: name } })),
  );
  await service.close();

  const hasRevisions = psql(dbUrl, "select count(*) from pg_tables where tablename = 'server_revisions'") === "1";
  if (!hasRevisions) console.log("revisions: none in this build (the 'before' run)");
  else {
    const row = psql(
      dbUrl,
      `select pg_column_size(document) || ' ' || pg_column_size(content) || ' ' || octet_length(document::text) || ' ' ||
         octet_length(content::text) from server_revisions where server_id = '${server.id}' order by version desc limit 1`,
    ).split(" ");
    const [documentStored, contentStored, documentText, contentText] = row.map(Number);
    const total = psql(dbUrl, `select pg_total_relation_size('server_revisions')`);
    const count = psql(dbUrl, "select count(*) from server_revisions");
    console.log(
      `one revision of a 5×10 server: document ${documentStored} B stored (${documentText} B as JSON text), ` +
        `content ${contentStored} B stored (${contentText} B as text); ` +
        `server_revisions holds ${count} revisions in ${total} B (table, TOAST and index)`,
    );
  }
  console.log(`load average ${(await import("node:os")).loadavg()[0].toFixed(1)}`);
} finally {
  psql(PG_ADMIN, `drop database if exists ${DB} with (force)`);
  await rm(dataDir, { recursive: true, force: true });
}
