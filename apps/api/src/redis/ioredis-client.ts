import { createRequire } from "node:module";
import type { Redis, RedisOptions } from "ioredis";

// ioredis is needed only when REDIS_URL is set (shared rate limits, the MCP cancellation relay), so it is
// loaded on first use rather than with the service: an instance without Redis (the embedded default) never
// holds its code (docs/performance.md, "Embedded store"). It is CommonJS, so `require` loads it synchronously
// and the callers stay synchronous.

/** A new ioredis client for `url`. */
export const newRedisClient = (url: string, options: RedisOptions): Redis => {
  const ioredis = createRequire(import.meta.url)("ioredis") as typeof import("ioredis");
  return new ioredis.Redis(url, options);
};
