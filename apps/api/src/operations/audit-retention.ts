import type { Storage } from "@mcpsm/domain/storage";
import { pruneAuditEvents } from "@mcpsm/domain/use-cases";
import type { ManagedRuntime } from "effect";
import type { Logger } from "pino";
import { startPeriodicPruning } from "./periodic-pruning.js";

/** Prunes audit events older than `retentionDays` now and then every hour, in the background. */
export const startAuditRetention = (
  runtime: ManagedRuntime.ManagedRuntime<Storage, never>,
  retentionDays: number,
  logger: Logger,
  intervalMs?: number,
) => startPeriodicPruning(runtime, "audit events", pruneAuditEvents(retentionDays), retentionDays, logger, intervalMs);
