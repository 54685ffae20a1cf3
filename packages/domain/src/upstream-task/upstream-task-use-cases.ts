import { read, transact } from "../use-case/use-case-kit.js";
import type { UpstreamTaskRow, UpstreamTaskStatus } from "./upstream-task-row.js";

// docs/api-rules.md §22: the shared record of an upstream task. The MCP runtime's poller writes it; any
// instance reads it.

/** Stores a new task. */
export const createUpstreamTask = (row: UpstreamTaskRow) => transact((tx) => tx.insertUpstreamTask(row));

/** The stored task `id`, or undefined. */
export const upstreamTaskById = (id: string) => read((tx) => tx.findUpstreamTask(id));

/** Replaces a task if its stored status is still `expected`; false when another instance changed it first. */
export const updateUpstreamTask = (row: UpstreamTaskRow, expected: UpstreamTaskStatus) =>
  transact((tx) => tx.updateUpstreamTask(row, expected));

/** Deletes at most `limit` tasks that expired at or before `at`; answers how many. */
export const sweepUpstreamTasks = (at: Date, limit = 500) => transact((tx) => tx.deleteExpiredUpstreamTasks(at, limit));
