import { randomBytes } from "node:crypto";
import type { CallLogStore, ToolCallRow } from "@mcpsm/domain/storage";
import type { McpCallLog, ToolCallEntry } from "@mcpsm/mcp-runtime";
import { Effect } from "effect";
import type { Logger } from "pino";

// The tool-call log's writer (docs/api-rules.md §24): the MCP runtime hands each finished call to `record`,
// which only appends to a bounded buffer; a timer (or a full batch) stores the buffer in batches, off the
// request path. When the buffer is full (the store is slow or down) new calls are dropped and counted,
// never waited for: the MCP endpoint's latency does not depend on the log.

export interface CallLogWriterOptions {
  readonly store: CallLogStore;
  readonly logger: Logger;
  /** Servers whose calls keep their arguments (masked); read on each call (a short list, usually empty). */
  readonly captureArguments?: ReadonlyArray<string> | undefined;
  /** How often the buffer is stored (default 1,000 ms). */
  readonly flushIntervalMs?: number | undefined;
  /** Calls per stored batch; a buffer this full is stored at once (default 500). */
  readonly batchSize?: number | undefined;
  /** Calls the buffer holds at most; beyond, calls are dropped (default 20,000). */
  readonly maxBuffered?: number | undefined;
  /** Told how many calls were just dropped (a metric). */
  readonly onDropped?: ((count: number) => void) | undefined;
}

export interface CallLogWriter extends McpCallLog {
  /** Stores everything buffered now; resolves when it is stored (or dropped on failure). */
  readonly flush: () => Promise<void>;
  /** Calls dropped so far (full buffer or failed store). */
  readonly dropped: () => number;
  /** Stops the timer and stores what is left. */
  readonly stop: () => Promise<void>;
}

/** Starts the call log's writer. */
export const startCallLogWriter = (options: CallLogWriterOptions): CallLogWriter => {
  const batchSize = Math.max(1, options.batchSize ?? 500);
  const maxBuffered = Math.max(batchSize, options.maxBuffered ?? 20_000);
  const capture = options.captureArguments ?? [];
  let buffer: Array<ToolCallEntry> = [];
  let droppedCount = 0;
  let flushing: Promise<void> | undefined;
  let soon = false;
  let lastWarning = 0;

  const drop = (count: number, reason: string, error?: unknown) => {
    droppedCount += count;
    options.onDropped?.(count);
    // One warning a minute at most: a store outage must not flood the log.
    const nowMs = Date.now();
    if (nowMs - lastWarning > 60_000) {
      lastWarning = nowMs;
      options.logger.warn(
        { dropped: count, total: droppedCount, reason, err: error },
        "tool calls dropped from the call log",
      );
    }
  };

  const store = async (entries: ReadonlyArray<ToolCallEntry>) => {
    // One draw of random bytes for the batch's ids, not one per call.
    const random = randomBytes(8 * entries.length);
    const rows: Array<ToolCallRow> = entries.map((entry, i) => ({
      id: random.toString("base64url", 8 * i, 8 * i + 8),
      ...entry,
    }));
    try {
      await Effect.runPromise(options.store.appendCalls(rows));
    } catch (error) {
      drop(rows.length, "store failed", error);
    }
  };

  const flush = (): Promise<void> => {
    if (flushing !== undefined) return flushing.then(() => (buffer.length > 0 ? flush() : undefined));
    flushing = (async () => {
      while (buffer.length > 0) {
        const batch = buffer.slice(0, batchSize);
        buffer = buffer.slice(batch.length);
        await store(batch);
      }
    })().finally(() => {
      flushing = undefined;
    });
    return flushing;
  };

  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 1_000);
  timer.unref();

  return {
    record: (entry) => {
      if (buffer.length >= maxBuffered) return drop(1, "buffer full");
      buffer.push(entry);
      if (buffer.length >= batchSize && !soon) {
        soon = true;
        setImmediate(() => {
          soon = false;
          void flush();
        });
      }
    },
    capturesArguments: (serverId) => capture.length > 0 && capture.includes(serverId),
    flush,
    dropped: () => droppedCount,
    stop: async () => {
      clearInterval(timer);
      await flush();
    },
  };
};
