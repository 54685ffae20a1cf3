// Latency the rate limits add to a management request, same machine, same run.
//
//   ./run build && node bench/rate-limit-overhead.mjs [requests=3000] [redis=redis://127.0.0.1:6379]
//
// Starts the real service (apps/api, in-memory store, dev auth) three times — rate limiting off, in memory,
// and in Redis — and times GET /servers (an empty list; authentication, both limits, the use case), one
// request at a time with undici's keep-alive fetch. Rounds alternate between the three services so drift hits
// them alike. Prints median and p99 of each and the added latency over "off" at those percentiles.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mintDevToken } from "@mcpsm/api/dist/auth/dev-auth.js";
import { localConfig } from "@mcpsm/api/dist/config/local-config.js";
import { DEFAULT_SECURITY_SETTINGS } from "@mcpsm/api/dist/config/security-config.js";
import { startService } from "@mcpsm/api/dist/service.js";
import { DEFAULT_QUOTAS } from "@mcpsm/domain/use-cases";
import { Option } from "effect";
import { Redis } from "ioredis";
import pino from "pino";
import { fetch } from "undici";

const REQUESTS = Number(process.argv[2] ?? 3000);
const REDIS_URL = process.argv[3] ?? "redis://127.0.0.1:6379";
const WARMUP = 300;
const prefix = `mcpsm-bench:${randomUUID()}`;
const huge = { points: 1_000_000_000, windowSeconds: 60, burst: 0 };

const start = async (name, rateLimit) => {
  const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-bench-rl-"));
  const service = await startService(
    localConfig(dataDir, {
      security: { ...DEFAULT_SECURITY_SETTINGS, rateLimit: { ...DEFAULT_SECURITY_SETTINGS.rateLimit, ...rateLimit } },
    }),
    { logger: pino({ level: "silent" }) },
  );
  const token = await mintDevToken(dataDir, { subject: "bench" });
  return { name, service, dataDir, token, samples: [] };
};

const targets = [
  await start("off", { enabled: false }),
  await start("memory", { enabled: true, tenant: huge, address: huge }),
  await start("redis", { enabled: true, tenant: huge, address: huge, redisUrl: REDIS_URL, keyPrefix: prefix }),
];

const once = async (target) => {
  const t0 = process.hrtime.bigint();
  const res = await fetch(`${target.service.url}/servers`, { headers: { authorization: `Bearer ${target.token}` } });
  await res.text();
  if (res.status !== 200) throw new Error(`${target.name}: ${res.status}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
};

for (let i = 0; i < WARMUP; i++) for (const t of targets) await once(t);
for (let i = 0; i < REQUESTS; i++) for (const t of targets) t.samples.push(await once(t));

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const base = targets[0];
console.log(`GET /servers, ${REQUESTS} requests each, sequential, keep-alive`);
for (const t of targets) {
  const m = pct(t.samples, 50);
  const p99 = pct(t.samples, 99);
  const added =
    t === base
      ? ""
      : `  added: median ${(m - pct(base.samples, 50)).toFixed(3)} ms, p99 ${(p99 - pct(base.samples, 99)).toFixed(3)} ms`;
  console.log(`${t.name.padEnd(7)} median ${m.toFixed(3)} ms  p99 ${p99.toFixed(3)} ms${added}`);
}

for (const t of targets) {
  await t.service.close();
  await rm(t.dataDir, { recursive: true, force: true });
}
const redis = new Redis(REDIS_URL);
const keys = await redis.keys(`${prefix}*`);
if (keys.length > 0) await redis.del(...keys);
redis.disconnect();
