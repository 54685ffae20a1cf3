import { randomUUID } from "node:crypto";
import type { UpstreamTaskRow } from "@mcpsm/domain/mcp";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { TaskRecords } from "./task-records.js";
import { type FollowBounds, nextWaitMs, overdueResult, type Watch } from "./watch.js";

// docs/api-rules.md §22, 2026-07-28 era with the tasks extension (io.modelcontextprotocol/tasks): an accepted
// upstream operation becomes a task. The task's record is in the store, so `tasks/get` and `tasks/cancel`
// reaching any instance answer it. Only the creating instance looks at the upstream (it holds the call's
// credentials): one timer per working task, one look per wait, and a write only when what it found changed.
// A poller that dies leaves its record `working`; past the deadline and a grace, readers answer `failed`.

/** How long a finished task's result stays readable. */
export const TASK_RETENTION_MS = 10 * 60_000;
/** Tasks this instance polls at once; past it the oldest poll stops (its task then fails at its deadline). */
export const MAX_TASKS = 50_000;
/** JSON-RPC's internal error: the service, not the operation, failed the task. */
const INTERNAL_ERROR = -32603;
/** How often this instance deletes expired task records (at most). */
const SWEEP_EVERY_MS = 60_000;

/** The extension's task statuses the service uses. */
type Status = "working" | "completed" | "cancelled" | "failed";

/** A task as `tasks/get` and the `CreateTaskResult` show it (the extension's `DetailedTask`). */
export interface TaskView {
  readonly taskId: string;
  readonly status: Status;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly result?: CallToolResult;
  /** A `failed` task's JSON-RPC error. */
  readonly error?: { readonly code: number; readonly message: string };
}

/** The poll this instance holds for one of its tasks. */
interface Poll {
  row: UpstreamTaskRow;
  url: URL;
  readonly watch: Watch;
  readonly abort: AbortController;
  timer: NodeJS.Timeout | undefined;
}

/** Every instance's tasks through the shared records; the polls of the tasks this instance created. */
export class UpstreamTasks {
  private readonly polls = new Map<string, Poll>();
  private readonly ttlMs: number;
  private lastSweep = 0;

  /** `graceMs`: how long past its deadline a `working` record may wait for its poller's last write. */
  constructor(
    private readonly bounds: FollowBounds,
    private readonly records: TaskRecords,
    private readonly graceMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.ttlMs = bounds.taskDeadlineMs + TASK_RETENTION_MS;
  }

  /** How many tasks this instance polls (tests and the bench). */
  get size(): number {
    return this.polls.size;
  }

  /**
   * A new task following the operation at `url` for `owner` (the caller's key), stored and polled from here;
   * its first view. Undefined when the store refused it (the caller follows the operation in its call).
   */
  async create(owner: string, url: URL, firstWaitMs: number | undefined, watch: Watch): Promise<TaskView | undefined> {
    const now = this.now();
    const waitMs = nextWaitMs(this.bounds, firstWaitMs);
    const row: UpstreamTaskRow = {
      id: randomUUID(),
      owner,
      status: "working",
      statusMessage: "the upstream accepted the request; its operation is running",
      result: null,
      pollIntervalMs: waitMs,
      createdAt: new Date(now),
      lastUpdatedAt: new Date(now),
      deadline: new Date(now + this.bounds.taskDeadlineMs),
      expiresAt: new Date(now + this.ttlMs),
    };
    try {
      await this.records.insert(row);
    } catch {
      return undefined;
    }
    this.sweep(now);
    const poll: Poll = { row, url, watch, abort: new AbortController(), timer: undefined };
    this.polls.set(row.id, poll);
    if (this.polls.size > MAX_TASKS) this.stop(this.polls.values().next().value as Poll);
    this.schedule(poll, waitMs);
    return this.view(row);
  }

  /** The task as its record says (`failed` when its poller is gone); undefined: no such task of `owner`. */
  async get(owner: string, taskId: string): Promise<TaskView | undefined> {
    const row = await this.records.find(taskId);
    if (row === undefined || row.owner !== owner || row.expiresAt.getTime() <= this.now()) return undefined;
    return this.view(row);
  }

  /** Cancels a task (its poll stops wherever it runs); false: no such task of `owner`. */
  async cancel(owner: string, taskId: string): Promise<boolean> {
    const row = await this.records.find(taskId);
    if (row === undefined || row.owner !== owner || row.expiresAt.getTime() <= this.now()) return false;
    if (row.status === "working") {
      const cancelled: UpstreamTaskRow = {
        ...row,
        status: "cancelled",
        statusMessage: "cancelled by the client; the upstream operation itself may still run",
        lastUpdatedAt: new Date(this.now()),
      };
      // Lost to a finish written first: the task stays completed.
      await this.records.update(cancelled, "working");
    }
    const poll = this.polls.get(taskId);
    if (poll !== undefined) this.stop(poll);
    return true;
  }

  /** Stops every poll of this instance (the runtime is closing); the records stay for the other instances. */
  close(): void {
    for (const poll of [...this.polls.values()]) this.stop(poll);
  }

  private schedule(poll: Poll, waitMs: number): void {
    const delay = Math.max(0, Math.min(waitMs, poll.row.deadline.getTime() - this.now()));
    poll.timer = setTimeout(() => void this.step(poll), delay);
    // A poll never keeps the process alive.
    poll.timer.unref();
  }

  /** One look at the upstream (or the deadline's answer); writes the record when something changed. */
  private async step(poll: Poll): Promise<void> {
    poll.timer = undefined;
    if (this.now() >= poll.row.deadline.getTime())
      return this.persist(poll, this.finished(poll.row, overdueResult(this.bounds.taskDeadlineMs)));
    // A task cancelled through another instance is not looked at again.
    const stored = await this.records.find(poll.row.id).catch(() => poll.row);
    if (stored?.status !== "working") return this.stop(poll);
    const step = await poll.watch(poll.url, poll.abort.signal);
    if (poll.abort.signal.aborted) return;
    if (step.kind === "done") return this.persist(poll, this.finished(poll.row, step.result));
    poll.url = step.url ?? poll.url;
    const waitMs = nextWaitMs(this.bounds, step.waitMs);
    const message = step.message ?? poll.row.statusMessage;
    if (message === poll.row.statusMessage && waitMs === poll.row.pollIntervalMs) return this.schedule(poll, waitMs);
    const next = { ...poll.row, statusMessage: message, pollIntervalMs: waitMs, lastUpdatedAt: new Date(this.now()) };
    return this.persist(poll, next);
  }

  /** Writes the poll's next record; a lost race (cancelled elsewhere) stops it, a store failure retries. */
  private async persist(poll: Poll, next: UpstreamTaskRow): Promise<void> {
    let written: boolean;
    try {
      written = await this.records.update(next, "working");
    } catch {
      // The store is unreachable: try again after a wait, until the record is past its deadline's grace.
      if (this.now() < next.deadline.getTime() + this.graceMs) poll.timer = this.retry(poll, next);
      else this.stop(poll);
      return;
    }
    if (!written || next.status !== "working") return this.stop(poll);
    poll.row = next;
    this.schedule(poll, next.pollIntervalMs);
  }

  private retry(poll: Poll, next: UpstreamTaskRow): NodeJS.Timeout {
    const timer = setTimeout(() => void this.persist(poll, next), this.bounds.intervalMs);
    timer.unref();
    return timer;
  }

  private finished(row: UpstreamTaskRow, result: CallToolResult): UpstreamTaskRow {
    return {
      ...row,
      status: "completed",
      result: JSON.stringify(result),
      statusMessage: result.isError === true ? "the upstream operation failed" : "the upstream operation finished",
      lastUpdatedAt: new Date(this.now()),
    };
  }

  private stop(poll: Poll): void {
    if (poll.timer !== undefined) clearTimeout(poll.timer);
    poll.abort.abort();
    this.polls.delete(poll.row.id);
  }

  /** Deletes expired records now and then (every instance does; they take disjoint rows). */
  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.records.sweep(new Date(now)).catch(() => undefined);
  }

  private view(row: UpstreamTaskRow): TaskView {
    const orphaned = row.status === "working" && this.now() >= row.deadline.getTime() + this.graceMs;
    const base = {
      taskId: row.id,
      createdAt: row.createdAt.toISOString(),
      lastUpdatedAt: row.lastUpdatedAt.toISOString(),
      ttlMs: this.ttlMs,
      pollIntervalMs: row.pollIntervalMs,
    };
    if (orphaned) {
      const message = `the instance following the upstream operation stopped before it finished; its deadline of ${this.bounds.taskDeadlineMs} ms has passed`;
      // The extension's failed task carries its JSON-RPC error inline, and no result.
      return {
        ...base,
        status: "failed",
        statusMessage: message,
        lastUpdatedAt: new Date(row.deadline.getTime() + this.graceMs).toISOString(),
        error: { code: INTERNAL_ERROR, message },
      };
    }
    return {
      ...base,
      status: row.status,
      statusMessage: row.statusMessage,
      ...(row.result !== null ? { result: JSON.parse(row.result) as CallToolResult } : {}),
    };
  }
}
