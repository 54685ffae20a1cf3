import { type ResourceLimits, Worker } from "node:worker_threads";

// A small pool of worker threads, each running one job at a time under memory limits (`resourceLimits`) and
// a wall-clock deadline (from the moment the worker has loaded its modules and posted READY). A worker that overruns either is terminated (never waited on) and replaced by a new
// one for the next job; a worker that finished stays warm for the next job until it has idled `idleMs`.

/** What a worker posts first, once its modules are loaded. */
export const READY = "ready";

/** Longest a worker may take to load its modules. */
const STARTUP_MS = 30_000;

export interface WorkerPoolOptions {
  /** The worker's module. */
  readonly script: URL;
  /** Most workers alive at once (jobs beyond them wait). */
  readonly size: number;
  /** Most jobs waiting for a worker; more are answered `busy`. */
  readonly queue: number;
  /** Longest a job may run, from the moment a worker takes it. */
  readonly deadlineMs: number;
  readonly resourceLimits: ResourceLimits;
  /** How long a finished worker waits for another job before it ends. */
  readonly idleMs: number;
  /** Longest a new worker may take to load its modules; default 30 s. */
  readonly startupMs?: number;
}

export type PoolOutcome<R> =
  | { readonly kind: "done"; readonly reply: R }
  | { readonly kind: "deadline" }
  | { readonly kind: "memory" }
  | { readonly kind: "busy" }
  /** No worker could load its modules in time (a machine out of CPU): worth a retry, not a defect. */
  | { readonly kind: "unstarted" }
  | { readonly kind: "failed"; readonly error: string };

interface Job<Q, R> {
  readonly message: Q;
  /** Buffers the message hands over to the worker (no copy; they are unusable here afterwards). */
  readonly transfer: ReadonlyArray<ArrayBuffer>;
  readonly resolve: (outcome: PoolOutcome<R>) => void;
  timer?: NodeJS.Timeout;
  slot?: Slot<Q, R>;
  settled: boolean;
}

interface Slot<Q, R> {
  readonly worker: Worker;
  /** The worker has loaded its modules (its first message): a job's deadline runs from then. */
  ready: boolean;
  job?: Job<Q, R>;
  idleTimer?: NodeJS.Timeout;
  dead: boolean;
}

export class WorkerPool<Q, R> {
  private readonly slots = new Set<Slot<Q, R>>();
  private readonly idle: Array<Slot<Q, R>> = [];
  private readonly waiting: Array<Job<Q, R>> = [];

  constructor(private readonly options: WorkerPoolOptions) {}

  /**
   * Runs one job; `cancel` drops it when waiting, or ends its worker when running. The buffers of `transfer`
   * move to the worker with the message.
   */
  run(
    message: Q,
    transfer: ReadonlyArray<ArrayBuffer> = [],
  ): { readonly outcome: Promise<PoolOutcome<R>>; readonly cancel: () => void } {
    let job!: Job<Q, R>;
    const outcome = new Promise<PoolOutcome<R>>((resolve) => {
      job = { message, transfer, resolve, settled: false };
    });
    if (this.waiting.length >= this.options.queue && this.idle.length === 0 && this.slots.size >= this.options.size) {
      job.settled = true;
      job.resolve({ kind: "busy" });
    } else {
      this.waiting.push(job);
      this.dispatch();
    }
    return {
      outcome,
      cancel: () => {
        if (job.settled) return;
        const at = this.waiting.indexOf(job);
        if (at >= 0) this.waiting.splice(at, 1);
        this.settle(job, { kind: "failed", error: "cancelled" });
      },
    };
  }

  /** Ends every worker (jobs still running are answered `failed`). */
  async close(): Promise<void> {
    for (const job of this.waiting.splice(0)) this.settle(job, { kind: "failed", error: "the pool closed" });
    await Promise.all([...this.slots].map((slot) => this.end(slot)));
  }

  private dispatch() {
    while (this.waiting.length > 0) {
      const slot = this.idle.pop() ?? (this.slots.size < this.options.size ? this.spawn() : undefined);
      if (slot === undefined) return;
      clearTimeout(slot.idleTimer);
      const job = this.waiting.shift()!;
      job.slot = slot;
      slot.job = job;
      if (slot.ready) this.startClock(job);
      slot.worker.postMessage(job.message, [...job.transfer]);
    }
  }

  private startClock(job: Job<Q, R>) {
    job.timer = setTimeout(() => this.settle(job, { kind: "deadline" }), this.options.deadlineMs);
  }

  private spawn(): Slot<Q, R> {
    const worker = new Worker(this.options.script, { resourceLimits: this.options.resourceLimits });
    const slot: Slot<Q, R> = { worker, ready: false, dead: false };
    this.slots.add(slot);
    // Loading the worker's modules is bounded too, by a deadline of its own.
    const loading = setTimeout(() => {
      const job = slot.job;
      if (job !== undefined) this.settle(job, { kind: "unstarted" });
      else void this.end(slot);
    }, this.options.startupMs ?? STARTUP_MS);
    worker.on("message", (reply: R | typeof READY) => {
      if (!slot.ready) {
        slot.ready = true;
        clearTimeout(loading);
        if (slot.job !== undefined) this.startClock(slot.job);
        return;
      }
      const job = slot.job;
      if (job === undefined) return;
      slot.job = undefined;
      job.slot = undefined;
      this.settle(job, { kind: "done", reply: reply as R });
      if (!slot.dead) this.park(slot);
    });
    worker.on("error", (error: Error & { code?: string }) => {
      clearTimeout(loading);
      const job = slot.job;
      void this.end(slot);
      if (job !== undefined)
        this.settle(
          job,
          error.code === "ERR_WORKER_OUT_OF_MEMORY" ? { kind: "memory" } : { kind: "failed", error: error.message },
        );
    });
    worker.on("exit", () => {
      const job = slot.job;
      void this.end(slot);
      if (job !== undefined) this.settle(job, { kind: "failed", error: "the worker exited" });
    });
    worker.unref();
    return slot;
  }

  private park(slot: Slot<Q, R>) {
    this.idle.push(slot);
    slot.idleTimer = setTimeout(() => void this.end(slot), this.options.idleMs);
    slot.idleTimer.unref();
    this.dispatch();
  }

  /** Answers a job once; a job that did not finish ends its worker (a new one takes the next job). */
  private settle(job: Job<Q, R>, outcome: PoolOutcome<R>) {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.timer);
    const slot = job.slot;
    if (outcome.kind !== "done" && slot !== undefined && slot.job === job) {
      slot.job = undefined;
      void this.end(slot);
    }
    job.resolve(outcome);
  }

  private async end(slot: Slot<Q, R>) {
    if (slot.dead) return;
    slot.dead = true;
    clearTimeout(slot.idleTimer);
    this.slots.delete(slot);
    const at = this.idle.indexOf(slot);
    if (at >= 0) this.idle.splice(at, 1);
    this.dispatch();
    await slot.worker.terminate();
  }
}
