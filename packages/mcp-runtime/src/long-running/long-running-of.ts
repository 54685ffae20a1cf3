import type { EffectRunner } from "@mcpsm/upstream-http";
import type { McpSettings } from "../config.js";
import type { LongRunning } from "./answer-accepted.js";
import { storedTaskRecords } from "./task-records.js";
import { UpstreamTasks } from "./upstream-tasks.js";

/** The runtime's long-running machinery from its settings, its tasks in the service's store (§22). */
export const longRunningOf = (settings: McpSettings, runner: EffectRunner): LongRunning => {
  const bounds = {
    intervalMs: settings.upstreamPollIntervalMs,
    taskDeadlineMs: settings.upstreamOperationDeadlineMs,
    callDeadlineMs: settings.upstreamCallDeadlineMs,
  };
  // A live poller's last write comes at most one look (the upstream timeout) and one wait after the deadline.
  const graceMs = settings.upstreamTimeoutMs + settings.upstreamPollIntervalMs;
  return { bounds, tasks: new UpstreamTasks(bounds, storedTaskRecords(runner), graceMs) };
};
