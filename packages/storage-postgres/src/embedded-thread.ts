import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import type {
  ThreadAnswers,
  ThreadReply,
  ThreadRequest,
  ThreadRequestKind,
  ThreadStart,
  ThreadStarted,
} from "./embedded-thread-protocol.js";

// The embedded database's own thread (a worker started by embedded.ts): it owns PGlite and pglite-socket's
// TCP server, so that PostgreSQL's work runs on another core than the service's requests. The service's
// thread sends it whole protocol message batches and the gate's between-client chores (embedded-thread-
// protocol.ts) and relays the answers; TCP clients the gate lets through reach pglite-socket here directly.
// Type stripping runs this module as it is under tests: no TypeScript-only syntax beyond types.

/**
 * PostgreSQL settings for a small, single-session database. shared_buffers is PostgreSQL's default 128 MB
 * otherwise, WebAssembly memory that is never given back: 712 MiB RSS after opening an existing database,
 * 177 MiB with 16 MB, ~10 MiB less again with 8 MB at no measurable cost per write (docs/performance.md,
 * "Embedded idle RSS with the database thread"). The data files stay in the OS page cache anyway.
 */
const SETTINGS = ["-c", "shared_buffers=8MB"];

/** PGlite's PostgreSQL WebAssembly module, next to its entry point. */
const PGLITE_WASM = join(dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite")), "pglite.wasm");

/** A compiled WebAssembly module, as PGlite takes it. */
type PostgresModule = NonNullable<PGliteOptions["pgliteWasmModule"]>;

/** The one function of the WebAssembly JS API used here (the project's `lib` setting does not declare it). */
const wasm = (
  globalThis as unknown as { readonly WebAssembly: { compile: (b: Uint8Array) => Promise<PostgresModule> } }
).WebAssembly;

/**
 * PostgreSQL's WebAssembly module, compiled for this database: its machine code goes with the thread (V8
 * compiles WebAssembly functions on first call, and keeps them while the module lives).
 */
const compilePostgres = async (): Promise<PostgresModule> => wasm.compile(await readFile(PGLITE_WASM));

/** The first capacity of an answer's buffer; it doubles as needed (most answers are a few kB). */
const ANSWER_START_BYTES = 16_384;

const open = async (dataDir: string) => {
  // pg_trgm: the trigram indexes of the provider filters (the migrations create the extension).
  const db = await PGlite.create(dataDir, {
    pgliteWasmModule: await compilePostgres(),
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, ...SETTINGS],
  });
  // The gate (embedded.ts) lets one client through at a time; the headroom covers the moment in which
  // pglite-socket has not yet noticed that the previous connection closed.
  const inner = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 });
  try {
    await inner.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  return { db, inner, innerPort: Number(inner.getServerConn().split(":").at(-1)) };
};

/** Runs `messages` in one synchronous PGlite run and gathers the answer into one transferable buffer. */
const execBatch = async (db: PGlite, messages: Uint8Array): Promise<Uint8Array | undefined> => {
  let answer = new Uint8Array(0);
  let used = 0;
  // Synchronous inside (PGlite's file system needs no sync on Node); `bytes` is a view of PGlite's memory.
  await db.execProtocolRawStream(messages, {
    syncToFs: false,
    onRawData: (bytes) => {
      if (used + bytes.length > answer.length) {
        const grown = new Uint8Array(Math.max(ANSWER_START_BYTES, 2 * (used + bytes.length)));
        grown.set(answer.subarray(0, used));
        answer = grown;
      }
      answer.set(bytes, used);
      used += bytes.length;
    },
  });
  return used === 0 ? undefined : answer.subarray(0, used);
};

/** ParseComplete, the answer to a Parse. */
const PARSE_COMPLETE = new Uint8Array([0x31, 0, 0, 0, 4]);
const utf8 = new TextDecoder();

/** The statement name of a Parse at the head of `messages` ("" for none, or for the unnamed statement). */
const parsedName = (messages: Uint8Array) => {
  if (messages[0] !== 0x50 || messages.length < 6) return "";
  const end = messages.indexOf(0, 5);
  return end < 0 ? "" : utf8.decode(messages.subarray(5, end));
};

/** The length of the message at the head of `messages` (its type byte, then its length). */
const headLength = (messages: Uint8Array) =>
  1 + new DataView(messages.buffer, messages.byteOffset, messages.byteLength).getInt32(1);

/**
 * The in-process connections' batches at the single session. Several pg connections share it (the adapter's
 * pool): a batch runs as soon as no other connection's transaction is open, so the thread goes from one
 * request's batch to the next without waiting for the service's thread to hand the connection over; a
 * connection whose transaction is open is the only one whose batches run until it ends it (docs/decisions.md,
 * "embwrites"). The connections share the session's named statements too: a named Parse of a statement
 * another connection prepared (its name is a hash of its text, `statementName`) is answered ParseComplete
 * without running, since PostgreSQL would refuse to prepare the name twice.
 */
const sessionOf = (db: PGlite) => {
  interface Job {
    readonly conn: number;
    /** Runs even while another connection's transaction is open (the end of a connection). */
    readonly always: boolean;
    readonly run: () => Promise<Uint8Array | undefined>;
    readonly resolve: (answer: Uint8Array | undefined) => void;
    readonly reject: (error: Error) => void;
  }
  /** The connection whose transaction is open, if any. */
  let owner: number | undefined;
  const waiting: Array<Job> = [];
  let running = false;
  /** The named statements the in-process connections prepared (cleared with them: `deallocate all`). */
  const prepared = new Set<string>();

  const pump = async () => {
    if (running) return;
    running = true;
    try {
      for (;;) {
        // The first batch that may run, in arrival order.
        const next = waiting.findIndex((job) => job.always || owner === undefined || job.conn === owner);
        if (next < 0) return;
        const [job] = waiting.splice(next, 1) as [Job];
        try {
          job.resolve(await job.run());
        } catch (error) {
          job.reject(error as Error);
        }
      }
    } finally {
      running = false;
    }
  };
  const submit = (job: Omit<Job, "resolve" | "reject">) =>
    new Promise<Uint8Array | undefined>((resolve, reject) => {
      waiting.push({ ...job, resolve, reject });
      void pump();
    });

  const execNamed = async (conn: number, messages: Uint8Array) => {
    const name = parsedName(messages);
    try {
      if (name === "" || !prepared.has(name)) {
        const answer = await execBatch(db, messages);
        if (name !== "" && answer?.[0] === PARSE_COMPLETE[0]) prepared.add(name);
        return answer;
      }
      const rest = await execBatch(db, messages.subarray(headLength(messages)));
      const answer = new Uint8Array(PARSE_COMPLETE.length + (rest?.length ?? 0));
      answer.set(PARSE_COMPLETE);
      if (rest !== undefined) answer.set(rest, PARSE_COMPLETE.length);
      return answer;
    } finally {
      owner = !db.closed && db.isInTransaction() ? conn : undefined;
    }
  };

  return {
    exec: (conn: number, messages: Uint8Array) => submit({ conn, always: false, run: () => execNamed(conn, messages) }),
    end: (conn: number) =>
      submit({
        conn,
        always: true,
        run: async () => {
          // What the connection still had waiting is dropped (nobody reads it: the connection is gone).
          for (let i = waiting.length - 1; i >= 0; i--)
            if (waiting[i]?.conn === conn) waiting.splice(i, 1)[0]?.reject(new Error("the connection closed"));
          if (owner !== conn) return undefined;
          owner = undefined;
          if (!db.closed && db.isInTransaction()) await db.exec("rollback");
          return undefined;
        },
      }),
    /** `deallocate all` between clients of the gate: no connection of the last turn is left. */
    clear: () => prepared.clear(),
  };
};

/**
 * One memory-reducing collection of this thread's heap: opening PGlite leaves its start-up garbage (the
 * WebAssembly file's bytes, the grown young generation), which a thread that allocates little would keep
 * until its next collection, at idle never. V8's `gc`, fetched as apps/api's launcher fetches it
 * (memory-reducing-collection.ts), from a fresh context so that no global changes.
 */
const collectStartGarbage = () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as (options: { readonly type: "major"; readonly flavor: "last-resort" }) => void;
  gc({ type: "major", flavor: "last-resort" });
};

const serve = async (start: ThreadStart, port: NonNullable<typeof parentPort>) => {
  const { db, inner, innerPort } = await open(start.dataDir);
  collectStartGarbage();
  const session = sessionOf(db);
  const handlers: { [K in ThreadRequestKind]: (request: ThreadRequest) => Promise<ThreadAnswers[K]> } = {
    exec: (request) => session.exec(request.conn ?? 0, request.messages ?? new Uint8Array(0)),
    endTurn: async (request) => {
      await session.end(request.conn ?? 0);
    },
    settled: async () => db.closed || (inner.getStats().activeConnections === 0 && !db.isInTransaction()),
    // The next client is a new connection to pg but the same session to PostgreSQL: the named statements
    // the last one prepared would collide with its own ("prepared statement already exists").
    windDown: async () => {
      session.clear();
      if (!db.closed) await db.exec("deallocate all");
    },
    cpuUsage: async () => process.threadCpuUsage(),
    stop: async () => {
      await inner.stop();
      await db.close();
    },
  };
  port.on("message", (request: ThreadRequest) => {
    handlers[request.kind](request).then(
      (value) => {
        const reply: ThreadReply = { id: request.id, ok: true, value };
        // An answer's bytes move to the service's thread without a copy.
        port.postMessage(reply, value instanceof Uint8Array ? [value.buffer as ArrayBuffer] : []);
      },
      (error: Error) => {
        const reply: ThreadReply = { id: request.id, ok: false, error: error.stack ?? String(error) };
        port.postMessage(reply);
      },
    );
  });
  const started: ThreadStarted = { kind: "started", innerPort };
  port.postMessage(started);
};

if (parentPort !== null) {
  const port = parentPort;
  serve(workerData as ThreadStart, port).catch((error: Error) => {
    const failed: ThreadStarted = { kind: "failed", error: error.stack ?? String(error) };
    port.postMessage(failed);
  });
}
