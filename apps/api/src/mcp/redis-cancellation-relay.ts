import type { CancellationRelay, RelayedCancellation } from "@mcpsm/mcp-runtime";
import type { Logger } from "pino";
import { newRedisClient } from "../redis/ioredis-client.js";

// The MCP endpoint's cancellation relay over Redis pub/sub (REDIS_URL): a 2025-era `notifications/cancelled`
// that matches no call of the instance it reached is published, and every instance aborts the call it
// names if it runs there. Best effort: while Redis is away a cancellation reaching another instance is lost
// (the call still ends at its timeout), as before the relay existed.

export interface RedisCancellationRelay extends CancellationRelay {
  /** Settles once the subscription is in place (or failed; then cancellations from others are missed). */
  readonly ready: Promise<void>;
  readonly close: () => Promise<void>;
}

const isCancellation = (value: unknown): value is RelayedCancellation => {
  if (typeof value !== "object" || value === null) return false;
  const { caller, id, reason } = value as Record<string, unknown>;
  return (
    typeof caller === "string" &&
    (typeof id === "string" || (typeof id === "number" && Number.isFinite(id))) &&
    (reason === undefined || typeof reason === "string")
  );
};

/** A relay on `channel` of the Redis at `url`. */
export const redisCancellationRelay = (url: string, channel: string, logger: Logger): RedisCancellationRelay => {
  const publisher = newRedisClient(url, "commands");
  const subscriber = newRedisClient(url, "subscriber");
  let warned = false;
  const warn = (error: Error) => {
    if (warned) return;
    warned = true;
    logger.warn({ reason: error.message }, "mcp cancellation relay: Redis is unreachable; cancellations stay local");
  };
  publisher.on("error", warn);
  subscriber.on("error", warn);
  subscriber.on("ready", () => {
    warned = false;
  });
  const handlers = new Set<(cancellation: RelayedCancellation) => void>();
  subscriber.on("message", (from: string, message: string) => {
    if (from !== channel) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (!isCancellation(parsed)) return;
    for (const handler of handlers) handler(parsed);
  });
  const ready = subscriber.subscribe(channel).then(
    () => undefined,
    (error: Error) => warn(error),
  );
  return {
    ready,
    publish: (cancellation) => {
      publisher.publish(channel, JSON.stringify(cancellation)).catch(warn);
    },
    subscribe: (handler) => {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
    close: async () => {
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
    },
  };
};
