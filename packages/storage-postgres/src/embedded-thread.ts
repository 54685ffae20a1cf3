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
  const handlers: { [K in ThreadRequestKind]: (request: ThreadRequest) => Promise<ThreadAnswers[K]> } = {
    exec: (request) => execBatch(db, request.messages ?? new Uint8Array(0)),
    endTurn: async () => {
      if (!db.closed && db.isInTransaction()) await db.exec("rollback");
    },
    settled: async () => db.closed || (inner.getStats().activeConnections === 0 && !db.isInTransaction()),
    // The next client is a new connection to pg but the same session to PostgreSQL: the named statements
    // the last one prepared would collide with its own ("prepared statement already exists").
    windDown: async () => {
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
