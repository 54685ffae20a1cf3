// The messages between the service's thread and the embedded database's thread (embedded-thread.ts, which
// owns PGlite and pglite-socket; embedded-thread-link.ts is the service's side). Types only: the thread's
// module imports them with `import type`, which Node's type stripping erases when tests run the source.

/** What the database thread is given when it starts. */
export interface ThreadStart {
  /** The PGlite data directory (it exists and holds a database: initdb ran before). */
  readonly dataDir: string;
}

/** CPU time of a thread, in microseconds (Node's `process.threadCpuUsage()`). */
export interface ThreadCpuUsage {
  readonly user: number;
  readonly system: number;
}

/** Each request's kind and what the thread answers to it. */
export interface ThreadAnswers {
  /**
   * Runs protocol messages (whole ones) of in-process connection `conn` in PGlite, once no other connection's
   * transaction is open; answers PGlite's reply bytes, if any.
   */
  readonly exec: Uint8Array | undefined;
  /** In-process connection `conn` closed: its waiting batches are dropped, its open transaction rolled back. */
  readonly endTurn: undefined;
  /** Whether the session is free for the next client: no TCP client inside, no transaction open. */
  readonly settled: boolean;
  /** Clears what the previous client prepared (`deallocate all`) before the next one gets in. */
  readonly windDown: undefined;
  /** The database thread's own CPU time so far (benchmarks split a write's CPU by thread). */
  readonly cpuUsage: ThreadCpuUsage;
  /** Stops pglite-socket and closes PGlite, flushing it to the data directory. */
  readonly stop: undefined;
}

export type ThreadRequestKind = keyof ThreadAnswers;

/**
 * A request to the database thread; `messages` only with `exec` (its buffer is transferred, not copied), `conn`
 * (the in-process connection's number) with `exec` and `endTurn`.
 */
export interface ThreadRequest {
  readonly id: number;
  readonly kind: ThreadRequestKind;
  readonly messages?: Uint8Array;
  readonly conn?: number;
}

/** The answer to request `id`: its value, or the message of the error it failed with. */
export type ThreadReply =
  | { readonly id: number; readonly ok: true; readonly value: ThreadAnswers[ThreadRequestKind] }
  | { readonly id: number; readonly ok: false; readonly error: string };

/** Posted once by the thread: the database is open and pglite-socket listens on `innerPort`, or it failed. */
export type ThreadStarted =
  | { readonly kind: "started"; readonly innerPort: number }
  | { readonly kind: "failed"; readonly error: string };
