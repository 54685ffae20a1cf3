// Issue 24's hostile inputs against the built service: each sent 100 times in a row, then 100 times 4 at a
// time, while /healthz is probed every 100 ms. Prints per input: the answers' statuses, /healthz p99 and worst
// latency, and the service's RSS before and after. The service is `node apps/api/dist/main.js` (the launcher,
// with its memory settings), in-memory store, dev auth, its own OAuth server on.
//
//   ./run build && node bench/hostile-import.mjs [times=100] [only inputs whose label contains this]
//
// Goals (issue 24): the process lives, /healthz p99 under 200 ms, RSS back within 50 MB of the start once
// idle workers have ended, every answer a 4xx naming the limit, nothing stored.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import {
  emptyCollectionsBomb,
  flowList,
  manyKeys,
  refChain,
  swaggerAliasBomb,
} from "../apps/api/test/support/hostile-descriptions.ts";

const TIMES = Number(process.argv[2] ?? 100);
/** Only the inputs whose label contains this text (default: all). */
const ONLY = process.argv[3] ?? "";
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-"));
const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const child = spawn(process.execPath, [new URL("../apps/api/dist/main.js", import.meta.url).pathname], {
  env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: "silent", MCP_OAUTH_SERVER: "true" },
  stdio: ["ignore", "ignore", "inherit"],
});
const service = { url: `http://127.0.0.1:${port}` };
for (;;) {
  try {
    if ((await fetch(`${service.url}/healthz`)).ok) break;
  } catch {}
  await sleep(100);
}
/** The service's resident memory, from /proc. */
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) * 1024;
const token = await mintDevToken(dataDir, { subject: "attacker" });

const importing = (document) => () =>
  fetch(`${service.url}/providers/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ import: { document, dryRun: true } }),
  });

let clients = 0;
const registering = () => () =>
  fetch(`${service.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: `flood ${clients++}`,
      redirect_uris: Array.from({ length: 1000 }, (_, i) => `http://a.example/${i}`),
    }),
  });

// The $ref chains import compact since shared schemas stay shared (docs/api-rules.md §15a): each schema is held
// once in the tool schema's `$defs`, so their answer is a 200 dry run (or 429 past the per-tenant limit).
const COMPACT = new Set(["$ref chain S1..S6 (new leaf each time)", "$ref chain S1..S8"]);
const rows = [
  ["$ref chain S1..S6 (new leaf each time)", (i) => importing(refChain(6, `leaf ${i}`))],
  ["$ref chain S1..S8", () => importing(refChain(8, "leaf"))],
  ["YAML, 40,000 keys under x-pad (+1 duplicate)", () => importing(manyKeys(40_000))],
  ["Swagger 2.0 alias bomb, 6 levels", () => importing(swaggerAliasBomb())],
  ["alias bomb of empty collections, 8 levels", () => importing(emptyCollectionsBomb())],
  ["YAML flow list of 10^6 items", () => importing(flowList(1_000_000))],
  ["POST /oauth/register, 1,000 plain-http redirect URIs (26 KB)", () => registering()],
];

/** Probes /healthz every 100 ms until stopped; answers the latencies. */
const probe = () => {
  const latencies = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const started = performance.now();
      const res = await fetch(`${service.url}/healthz`);
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
      await sleep(100);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      return latencies;
    },
  };
};

const send = async (request, statuses, okAllowed) => {
  const res = await request();
  const text = await res.text();
  const key = `${res.status}`;
  statuses.set(key, (statuses.get(key) ?? 0) + 1);
  const expected = res.status === 429 || (okAllowed ? res.status === 200 : res.status >= 400 && res.status < 500);
  if (!expected) console.log(`  unexpected ${res.status}: ${text.slice(0, 200)}`);
  return text;
};

const startRss = rss();
console.log(
  `service RSS at start: ${mb(startRss)}; each input ${TIMES} times in a row, then ${TIMES} times 4 at a time`,
);
for (const [label, make] of rows.filter(([label]) => label.includes(ONLY))) {
  const before = rss();
  const healthz = probe();
  const statuses = new Map();
  const started = performance.now();
  let example = "";
  for (let i = 0; i < TIMES; i++) example = await send(make(i), statuses, COMPACT.has(label));
  for (let i = 0; i < TIMES; i += 4)
    await Promise.all([0, 1, 2, 3].map((k) => send(make(TIMES + i + k), statuses, COMPACT.has(label))));
  const took = performance.now() - started;
  const latencies = (await healthz.stop()).sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))];
  console.log(
    `${label}: ${[...statuses].map(([s, n]) => `${n}×${s}`).join(", ")} in ${(took / 1000).toFixed(1)} s; ` +
      `/healthz p99 ${p99.toFixed(0)} ms, worst ${latencies.at(-1).toFixed(0)} ms (${latencies.length} probes); ` +
      `RSS ${mb(before)} → ${mb(rss())}`,
  );
  console.log(`  e.g. ${example.slice(0, 220)}`);
}
const endRss = rss();
const stored = await fetch(`${service.url}/providers`, { headers: { authorization: `Bearer ${token}` } });
console.log(`providers stored: ${(await stored.json()).providers.length}`);
// Idle reader workers end after 10 s; the heap shrinks at the collections that follow.
await sleep(15_000);
console.log(`service RSS: start ${mb(startRss)}, end of the run ${mb(endRss)}, 15 s later ${mb(rss())}`);
child.kill("SIGTERM");
await new Promise((resolve) => child.once("exit", resolve));
await rm(dataDir, { recursive: true, force: true });
