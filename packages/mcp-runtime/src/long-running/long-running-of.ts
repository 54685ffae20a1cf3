import type { McpSettings } from "../config.js";
import type { LongRunning } from "./answer-accepted.js";
import { UpstreamTasks } from "./upstream-tasks.js";

/** The runtime's long-running machinery from its settings (docs/api-rules.md §22). */
export const longRunningOf = (settings: McpSettings): LongRunning => {
  const bounds = {
    intervalMs: settings.upstreamPollIntervalMs,
    taskDeadlineMs: settings.upstreamOperationDeadlineMs,
    callDeadlineMs: settings.upstreamCallDeadlineMs,
  };
  return { bounds, tasks: new UpstreamTasks(bounds) };
};
