import { Worker } from "node:worker_threads";
import type { FilterOutcome } from "../filter/response-filter.js";
import {
  compileJqModule,
  type SandboxJob,
  type SandboxReady,
  type SandboxReply,
  type SandboxRequest,
  type SandboxStart,
} from "./filter-worker.js";
import { nextRunCheck } from "./run-deadline.js";

/** Limits of the sandbox thread's JavaScript heap (jq's WebAssembly memory has its own cap). */
export const SANDBOX_RESOURCE_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };

type Job = {
  readonly request: SandboxJob;
  readonly deadlineMs: number;
  readonly settle: (outcome: FilterOutcome & { readonly text?: string }) => void;
};

/** The CPU time a thread has spent, in ms; undefined when it cannot be read (the thread is gone). */
const cpuMsOf = (worker: Worker): Promise<number | undefined> =>
  worker.cpuUsage().then(
    (usage) => (usage.user + usage.system) / 1000,
    () => undefined,
  );

/** `filter-worker.ts` beside this file: its `.js` build, or the source itself where Node runs TypeScript. */
const workerURL = (): URL =>
  new URL(import.meta.url.endsWith(".ts") ? "./filter-worker.ts" : "./filter-worker.js", import.meta.url);

/**
 * A thread that runs filters the caller's thread cannot bound itself (jq, and JMESPath expressions without
 * a static cost bound), one at a time, each under a deadline counted from its start in the thread's CPU time
 * and capped in wall time (`run-deadline.ts`): a run past it, or one that exhausts the thread's memory, ends
 * the thread (a new one starts for the next run), and the caller gets `over-budget`. The thread is
 * `unref`ed: it never keeps a process alive.
 */
export class FilterSandbox {
  /** The most runs that may wait; past it a run is refused at once as over-budget (none: no bound). */
  readonly #maxQueue: number;
  constructor(options: { readonly maxQueue?: number } = {}) {
    this.#maxQueue = options.maxQueue ?? Number.POSITIVE_INFINITY;
  }

  #worker: Worker | undefined;
  /** jq's compiled WebAssembly module, shared by every thread (a restart does not compile it again). */
  #jqModule: Promise<object> | undefined;
  #ready = false;
  /** The thread's CPU time at its last message: the next run's budget counts from it (the thread idles between). */
  #threadCpuMs: number | undefined;
  #closed = false;
  #nextId = 1;
  #queue: Array<Job> = [];
  #running: { readonly id: number; readonly job: Job; timer: NodeJS.Timeout } | undefined;
  /** True once `close` was called: a closed sandbox runs nothing more. */
  get closed(): boolean {
    return this.#closed;
  }

  /** How many threads were ended for running past a budget (for tests and metrics). */
  terminations = 0;

  run(request: SandboxJob, deadlineMs: number): Promise<FilterOutcome & { readonly text?: string }> {
    if (this.#queue.length >= this.#maxQueue)
      return Promise.resolve({
        ok: false,
        reason: "over-budget",
        message: `the filter sandbox is busy (${this.#maxQueue} runs waiting)`,
      });
    return new Promise((settle) => {
      this.#queue.push({ request, deadlineMs, settle });
      this.#pump();
    });
  }

  /** Ends the thread; runs still queued get `failed`. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    for (const job of this.#queue.splice(0)) job.settle({ ok: false, reason: "failed", message: "the sandbox closed" });
    if (this.#running !== undefined) this.#finish({ ok: false, reason: "failed", message: "the sandbox closed" });
    if (worker !== undefined) await worker.terminate();
  }

  #spawn(): Worker {
    this.#jqModule ??= compileJqModule();
    const worker = new Worker(workerURL(), { resourceLimits: SANDBOX_RESOURCE_LIMITS });
    worker.unref();
    // The thread waits for its module before it says it is ready.
    this.#jqModule.then(
      (jqModule) => worker.postMessage({ jqModule } satisfies SandboxStart),
      () => worker.postMessage({ jqModule: undefined } satisfies SandboxStart),
    );
    this.#ready = false;
    this.#threadCpuMs = undefined;
    worker.on("message", (message: SandboxReply | SandboxReady) => {
      if (this.#worker === worker) this.#threadCpuMs = message.cpuMs;
      if ("ready" in message) {
        if (this.#worker !== worker) return;
        if (message.ready) {
          this.#ready = true;
          this.#pump();
        } else this.#failAll(`the sandbox could not start: ${message.message ?? ""}`);
        return;
      }
      const reply = message;
      if (this.#running?.id !== reply.id) return;
      // jq's runtime is unusable after an abort (its memory cap): start afresh, before the next run is sent,
      // or that run would go to the thread being ended and fail at its deadline.
      if (!reply.ok && (reply.over || reply.message.startsWith("Aborted"))) this.#replace(worker);
      this.#finish(
        reply.ok
          ? { ok: true, value: undefined, text: reply.text }
          : { ok: false, reason: reply.over ? "over-budget" : "failed", message: reply.message },
      );
    });
    worker.on("error", (error) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      if (this.#running === undefined) return this.#failAll(`the sandbox could not start: ${error.message}`);
      const over = (error as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY" || error instanceof RangeError;
      this.#finish({ ok: false, reason: over ? "over-budget" : "failed", message: error.message });
    });
    worker.on("exit", () => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      if (this.#running === undefined) return this.#failAll("the sandbox thread ended");
      this.#finish({ ok: false, reason: "failed", message: "the sandbox thread ended" });
    });
    return worker;
  }

  /** Ends `worker` and starts its successor at once, so the next run waits as little as possible. */
  #replace(worker: Worker): void {
    this.terminations += 1;
    void worker.terminate();
    if (this.#worker === worker) this.#worker = this.#closed ? undefined : this.#spawn();
  }

  #finish(outcome: FilterOutcome & { readonly text?: string }): void {
    const running = this.#running;
    if (running === undefined) return;
    this.#running = undefined;
    clearTimeout(running.timer);
    running.job.settle(outcome);
    this.#pump();
  }

  #failAll(message: string): void {
    for (const job of this.#queue.splice(0)) job.settle({ ok: false, reason: "failed", message });
  }

  #pump(): void {
    if (this.#running !== undefined || this.#queue.length === 0) return;
    if (this.#closed) {
      this.#failAll("the sandbox closed");
      return;
    }
    this.#worker ??= this.#spawn();
    if (!this.#ready) return;
    const worker = this.#worker;
    const job = this.#queue.shift() as Job;
    const id = this.#nextId++;
    const started = performance.now();
    const cpuAtStart = this.#threadCpuMs;
    const overBudget = () => {
      this.#replace(worker);
      this.#finish({
        ok: false,
        reason: "over-budget",
        message: `the filter ran past its ${job.deadlineMs} ms budget`,
      });
    };
    // At the budget in wall time, ask the thread how much CPU the run has had; wait for the rest if any.
    const check = async () => {
      const now = await cpuMsOf(worker);
      const running = this.#running;
      if (running?.id !== id) return;
      const cpuMs = cpuAtStart === undefined || now === undefined ? undefined : now - cpuAtStart;
      const next = nextRunCheck({ budgetMs: job.deadlineMs, elapsedMs: performance.now() - started, cpuMs });
      if (next.stop) return overBudget();
      running.timer = setTimeout(() => void check(), next.waitMs);
      running.timer.unref();
    };
    const timer = setTimeout(() => void check(), job.deadlineMs);
    timer.unref();
    this.#running = { id, job, timer };
    worker.postMessage({ ...job.request, id } as SandboxRequest);
  }
}

let shared: FilterSandbox | undefined;
let suspect: FilterSandbox | undefined;

/** The process's sandbox, made on first use. */
export const sharedSandbox = (): FilterSandbox => {
  if (shared === undefined || shared.closed) shared = new FilterSandbox();
  return shared;
};

/** Runs of a suspect filter that may wait at once; more are refused as over-budget. */
export const SUSPECT_MAX_QUEUE = 16;

/**
 * The process's second sandbox, for filters that recently ran past their budget (`suspect-filters.ts`):
 * they wait on each other, not on the filters of every other tool. Its queue is bounded.
 */
export const suspectSandbox = (): FilterSandbox => {
  if (suspect === undefined || suspect.closed) suspect = new FilterSandbox({ maxQueue: SUSPECT_MAX_QUEUE });
  return suspect;
};

/** Ends both sandboxes' threads (a later run starts new ones). */
export const closeSandboxes = async (): Promise<void> => {
  await Promise.all([shared?.close(), suspect?.close()]);
};
