import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { type FollowBounds, nextWaitMs, overdueResult, type Watch } from "./watch.js";

// docs/api-rules.md §22, 2026-07-28 era with the tasks extension (io.modelcontextprotocol/tasks): an accepted
// upstream operation becomes a task. Nothing runs between polls: `tasks/get` looks at the upstream status URL
// only when the last look is at least one interval old (one look in flight per task, shared by concurrent
// polls), so a task costs at most one upstream request per interval and no timer. Tasks live in this
// instance's memory (bounded); the transport routes a task's requests here by `Mcp-Name` (the task id).

/** How long a finished task's result stays readable. */
export const TASK_RETENTION_MS = 10 * 60_000;
/** Tasks kept per instance; past it the oldest is dropped (its polls then answer "not found"). */
export const MAX_TASKS = 50_000;

type Status = "working" | "completed" | "cancelled";

interface UpstreamTask {
  readonly id: string;
  readonly owner: string;
  readonly createdAt: number;
  readonly deadline: number;
  readonly abort: AbortController;
  readonly watch: Watch;
  url: URL;
  status: Status;
  statusMessage: string | undefined;
  result: CallToolResult | undefined;
  lastUpdatedAt: number;
  waitMs: number;
  nextLookAt: number;
  looking: Promise<void> | undefined;
}

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
}

/** The tasks of one instance: created by tools/call, read by tasks/get, ended by tasks/cancel. */
export class UpstreamTasks {
  private readonly tasks = new Map<string, UpstreamTask>();
  private readonly ttlMs: number;

  constructor(
    private readonly bounds: FollowBounds,
    private readonly now: () => number = Date.now,
  ) {
    this.ttlMs = bounds.taskDeadlineMs + TASK_RETENTION_MS;
  }

  /** How many tasks this instance holds (tests and the bench). */
  get size(): number {
    return this.tasks.size;
  }

  /** A new task following the operation at `url` for `owner` (the caller's key); its first view. */
  create(owner: string, url: URL, firstWaitMs: number | undefined, watch: Watch): TaskView {
    this.sweep();
    const now = this.now();
    const waitMs = nextWaitMs(this.bounds, firstWaitMs);
    const task: UpstreamTask = {
      id: randomUUID(),
      owner,
      createdAt: now,
      deadline: now + this.bounds.taskDeadlineMs,
      abort: new AbortController(),
      watch,
      url,
      status: "working",
      statusMessage: "the upstream accepted the request; its operation is running",
      result: undefined,
      lastUpdatedAt: now,
      waitMs,
      nextLookAt: now + waitMs,
      looking: undefined,
    };
    this.tasks.set(task.id, task);
    return this.view(task);
  }

  /** The task as of now (looking at the upstream when an interval has passed); undefined: no such task. */
  async get(owner: string, taskId: string): Promise<TaskView | undefined> {
    const task = this.tasks.get(taskId);
    if (task === undefined || task.owner !== owner) return undefined;
    if (task.status === "working") {
      const now = this.now();
      if (now >= task.deadline) this.finish(task, overdueResult(this.bounds.taskDeadlineMs));
      else if (task.looking !== undefined) await task.looking;
      else if (now >= task.nextLookAt) {
        task.looking = this.look(task);
        await task.looking;
      }
    }
    return this.view(task);
  }

  /** Cancels a task (its look in flight is aborted); false: no such task. */
  cancel(owner: string, taskId: string): boolean {
    const task = this.tasks.get(taskId);
    if (task === undefined || task.owner !== owner) return false;
    if (task.status === "working") {
      task.status = "cancelled";
      task.statusMessage = "cancelled by the client; the upstream operation itself may still run";
      task.lastUpdatedAt = this.now();
      task.abort.abort();
    }
    return true;
  }

  /** Ends every task (the runtime is closing). */
  close(): void {
    for (const task of this.tasks.values()) task.abort.abort();
    this.tasks.clear();
  }

  private async look(task: UpstreamTask): Promise<void> {
    try {
      const step = await task.watch(task.url, task.abort.signal);
      if (task.status !== "working") return;
      if (step.kind === "done") return this.finish(task, step.result);
      const now = this.now();
      task.url = step.url ?? task.url;
      task.waitMs = nextWaitMs(this.bounds, step.waitMs);
      task.nextLookAt = now + task.waitMs;
      if (step.message !== undefined && step.message !== task.statusMessage) {
        task.statusMessage = step.message;
        task.lastUpdatedAt = now;
      }
    } finally {
      task.looking = undefined;
    }
  }

  private finish(task: UpstreamTask, result: CallToolResult): void {
    task.status = "completed";
    task.result = result;
    task.statusMessage = result.isError === true ? "the upstream operation failed" : "the upstream operation finished";
    task.lastUpdatedAt = this.now();
  }

  /** Drops expired tasks, and the oldest when the instance holds too many. */
  private sweep(): void {
    const now = this.now();
    for (const task of this.tasks.values()) {
      // Insertion order is creation order: the first live task ends the sweep.
      if (task.createdAt + this.ttlMs > now && this.tasks.size < MAX_TASKS) break;
      task.abort.abort();
      this.tasks.delete(task.id);
    }
  }

  private view(task: UpstreamTask): TaskView {
    return {
      taskId: task.id,
      status: task.status,
      ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
      createdAt: new Date(task.createdAt).toISOString(),
      lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
      ttlMs: this.ttlMs,
      pollIntervalMs: task.waitMs,
      ...(task.result !== undefined ? { result: task.result } : {}),
    };
  }
}
