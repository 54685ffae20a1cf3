import type { Storage } from "@mcpsm/domain/storage";
import { pruneToolCalls } from "@mcpsm/domain/use-cases";
import type { ManagedRuntime } from "effect";
import type { Logger } from "pino";
import { startPeriodicPruning } from "./periodic-pruning.js";

/** Prunes tool calls older than `retentionDays` (CALL_LOG_RETENTION_DAYS) now and then every hour. */
export const startCallLogRetention = (
  runtime: ManagedRuntime.ManagedRuntime<Storage, never>,
  retentionDays: number,
  logger: Logger,
  intervalMs?: number,
) => startPeriodicPruning(runtime, "tool calls", pruneToolCalls(retentionDays), retentionDays, logger, intervalMs);
