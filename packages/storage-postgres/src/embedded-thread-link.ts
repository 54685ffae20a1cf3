import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type {
  ThreadAnswers,
  ThreadReply,
  ThreadRequest,
  ThreadRequestKind,
  ThreadStart,
  ThreadStarted,
} from "./embedded-thread-protocol.js";

// The service thread's side of the embedded database's thread (embedded-thread.ts): starts it, sends it
// requests and matches the answers. A thread that ends unasked (a crash, an out-of-memory abort) fails every
// request waiting on it and every later one with EmbeddedDatabaseGone, which the adapter reports as the
// store's Unavailable: requests fail, they never hang.

/** The database thread's module next to this one: dist/embedded-thread.js, or the TypeScript source under tests. */
const THREAD_MODULE = fileURLToPath(
  new URL(import.meta.url.endsWith(".ts") ? "./embedded-thread.ts" : "./embedded-thread.js", import.meta.url),
);

/**
 * The embedded database can no longer be reached: its thread ended (`57P02`, crash shutdown) or it was
 * stopped (`57P01`, admin shutdown). The SQLSTATE is what the adapter's `isConnectionError` recognises.
 */
export class EmbeddedDatabaseGone extends Error {
  constructor(
    readonly code: "57P01" | "57P02",
    reason: string,
  ) {
    super(`the embedded database is gone: ${reason}`);
    this.name = "EmbeddedDatabaseGone";
  }
}

interface Waiting {
  readonly resolve: (value: ThreadAnswers[ThreadRequestKind]) => void;
  readonly reject: (error: Error) => void;
}

/** A running database thread: requests to it, and whether it is still there. */
export class DatabaseThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  #gone: EmbeddedDatabaseGone | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on("message", (reply: ThreadReply) => this.#answer(reply));
    worker.on("error", (error: Error) => this.#end(new EmbeddedDatabaseGone("57P02", error.message)));
    worker.on("exit", (code) => this.#end(new EmbeddedDatabaseGone("57P02", `its thread exited (${code})`)));
  }

  /** Starts the thread on `dataDir` and resolves once PGlite is open, with pglite-socket's port. */
  static start(dataDir: string): Promise<{ readonly thread: DatabaseThread; readonly innerPort: number }> {
    const start: ThreadStart = { dataDir };
    // Named so that a benchmark finds its CPU time (/proc/<pid>/task/<tid>/comm).
    const worker = new Worker(THREAD_MODULE, { workerData: start, name: "pglite" });
    return new Promise((resolve, reject) => {
      const failed = (error: Error) => {
        worker.off("message", started);
        void worker.terminate();
        reject(error);
      };
      const stopped = (code: number) => failed(new Error(`the embedded database's thread exited (${code})`));
      const started = (message: ThreadStarted) => {
        worker.off("error", failed);
        worker.off("exit", stopped);
        worker.off("message", started);
        if (message.kind === "failed") {
          void worker.terminate();
          reject(new Error(`opening the embedded database failed: ${message.error}`));
        } else resolve({ thread: new DatabaseThread(worker), innerPort: message.innerPort });
      };
      worker.once("error", failed);
      worker.once("exit", stopped);
      worker.on("message", started);
    });
  }

  /** Whether the thread is gone (ended, crashed or stopped). */
  get gone(): EmbeddedDatabaseGone | undefined {
    return this.#gone;
  }

  /**
   * Sends a request and resolves with the thread's answer. `messages` (exec only) is transferred: the
   * caller must not use it afterwards. `conn`: the in-process connection it is for (exec, endTurn).
   */
  request<K extends ThreadRequestKind>(kind: K, messages?: Uint8Array, conn?: number): Promise<ThreadAnswers[K]> {
    if (this.#gone !== undefined) return Promise.reject(this.#gone);
    const id = this.#nextId++;
    const request: ThreadRequest = {
      id,
      kind,
      ...(messages === undefined ? {} : { messages }),
      ...(conn === undefined ? {} : { conn }),
    };
    return new Promise<ThreadAnswers[K]>((resolve, reject) => {
      this.#waiting.set(id, { resolve: resolve as Waiting["resolve"], reject });
      this.#worker.postMessage(request, messages === undefined ? [] : [messages.buffer as ArrayBuffer]);
    });
  }

  /** Closes the database (flushing it) and ends the thread; later requests fail with EmbeddedDatabaseGone. */
  async stop(): Promise<void> {
    try {
      await this.request("stop");
    } finally {
      this.#end(new EmbeddedDatabaseGone("57P01", "it was stopped"));
      await this.#worker.terminate();
    }
  }

  #answer(reply: ThreadReply) {
    const waiting = this.#waiting.get(reply.id);
    if (waiting === undefined) return;
    this.#waiting.delete(reply.id);
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(new Error(`the embedded database failed: ${reply.error}`));
  }

  /** Fails what waits and what comes (the first reason wins). */
  #end(gone: EmbeddedDatabaseGone) {
    this.#gone ??= gone;
    for (const waiting of this.#waiting.values()) waiting.reject(this.#gone);
    this.#waiting.clear();
  }

  /** Ends the thread at once, as a crash would: what waits on it fails (tests; not part of a normal stop). */
  async kill(): Promise<void> {
    await this.#worker.terminate();
  }
}
