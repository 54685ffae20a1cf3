import { createRequire } from "node:module";
import type { Redis, RedisOptions } from "ioredis";

// ioredis is needed only when REDIS_URL is set (shared rate limits, the MCP cancellation relay), so it is
// loaded on first use rather than with the service: an instance without Redis (the embedded default) never
// holds its code (docs/performance.md, "Embedded store"). It is CommonJS, so `require` loads it synchronously
// and the callers stay synchronous.

/**
 * What a client is for. `commands`: a command Redis cannot take now fails at once (no offline queue, a
 * second per command), so its caller falls back (to local counters, to a local cancellation) instead of
 * queueing requests behind an outage. `subscriber`: commands wait for the connection, so a SUBSCRIBE sent
 * before it is up still lands.
 */
export type RedisClientRole = "commands" | "subscriber";

const OPTIONS: Readonly<Record<RedisClientRole, RedisOptions>> = {
  commands: { connectTimeout: 2_000, maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1_000 },
  subscriber: { connectTimeout: 2_000, maxRetriesPerRequest: 1 },
};

/** A new ioredis client for `url`, set up for `role`. */
export const newRedisClient = (url: string, role: RedisClientRole): Redis => {
  const ioredis = createRequire(import.meta.url)("ioredis") as typeof import("ioredis");
  return new ioredis.Redis(url, OPTIONS[role]);
};
