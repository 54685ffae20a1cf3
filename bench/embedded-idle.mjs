// Idle RSS of the embedded default store (PGlite in the service process): start-up time and RSS 2 s after
// /readyz, as the shared harness measures it, on a fresh DATA_DIR and on a restart on the same DATA_DIR,
// then once more after a small seeding (5 providers x 10 tools and a server) and 1 s of quiet. Goal:
// ≤ 250 MB idle (issue 15). No PostgreSQL server needed.
//
//   ./run build && node bench/embedded-idle.mjs [runs=3]
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { seedProviderLinks } from "./lib/seed.mjs";
import { apiClient, rssMiB, startServiceProcess } from "./lib/service-process.mjs";

const RUNS = Number(process.argv[2] ?? 3);

const idleStart = async (dataDir, { seed = false } = {}) => {
  const service = await startServiceProcess({ dataDir });
  try {
    await sleep(2000);
    const row = { startupMs: service.startupMs, idleRss: rssMiB(service.pid) };
    if (seed) {
      const api = apiClient(service.url, service.token("bench"));
      await api("POST", "/servers", { server: { name: "Bench server", providers: await seedProviderLinks(api) } });
      await sleep(1000);
      row.seededRss = rssMiB(service.pid);
    }
    return row;
  } finally {
    await service.stop();
  }
};

const mib = (n) => n.toFixed(0);
const rows = [];
for (let run = 1; run <= RUNS; run++) {
  const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-idle-"));
  try {
    const load = loadavg()[0].toFixed(1);
    const fresh = await idleStart(dataDir, { seed: true });
    const restart = await idleStart(dataDir);
    rows.push({ load, fresh, restart });
    console.error(
      `run ${run} (load ${load}): fresh start ${fresh.startupMs} ms, idle ${mib(fresh.idleRss)} MiB, after seeding ${mib(fresh.seededRss)} MiB; restart ${restart.startupMs} ms, idle ${mib(restart.idleRss)} MiB`,
    );
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
console.log(
  "| run | load | fresh start-up ms | fresh idle RSS MiB | after seeding MiB | restart start-up ms | restart idle RSS MiB |",
);
console.log("|---|---|---|---|---|---|---|");
for (const [i, r] of rows.entries())
  console.log(
    `| ${i + 1} | ${r.load} | ${r.fresh.startupMs} | ${mib(r.fresh.idleRss)} | ${mib(r.fresh.seededRss)} | ${r.restart.startupMs} | ${mib(r.restart.idleRss)} |`,
  );
