import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { connect, createServer, type Server, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Duplex } from "node:stream";
import { Worker } from "node:worker_threads";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { EmbeddedStream, type Turn } from "./embedded-stream.js";

/** A PostgreSQL server running in this process (PGlite) and reachable over loopback TCP. */
export interface EmbeddedPostgres {
  /** The URL to connect to: `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  /** The port it listens on (chosen by the system unless given). */
  readonly port: number;
  /**
   * The connection options the adapter needs here: a pool of exactly one connection, released after a
   * few idle seconds so that another client (a migration, a shell) gets its turn. Spread them into
   * `makePostgresStorage({ ...embedded.storageOptions })`.
   */
  readonly storageOptions: {
    readonly url: string;
    readonly poolSize: 1;
    readonly idleTimeoutMs: number;
    /** The adapter's connections reach the database in this process, not over TCP (embedded-stream.ts). */
    readonly stream: () => Duplex;
  };
  /** Stops listening, closes every connection and closes the database (flushing it to `dataDir`). */
  readonly stop: () => Promise<void>;
}

/** How long a finished connection's session may take to wind down before the next client is let in. */
const SETTLE_LIMIT_MS = 2_000;

/**
 * PostgreSQL settings for a small, single-session database. shared_buffers is PostgreSQL's default 128 MB
 * otherwise, WebAssembly memory that is never given back: 712 MiB RSS after opening an existing database,
 * 177 MiB with 16 MB (docs/performance.md). The data files stay in the OS page cache anyway.
 */
const SETTINGS = ["-c", "shared_buffers=16MB"];

/** PGlite's PostgreSQL WebAssembly module, next to its entry point. */
const PGLITE_WASM = join(dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite")), "pglite.wasm");

/**
 * PostgreSQL's WebAssembly module, compiled for one database. Left to itself PGlite compiles it once and
 * keeps it for the life of the process, and with it the machine code of every PostgreSQL function any
 * instance ever ran (V8 compiles WebAssembly functions on first call): creating the schema on a new data
 * directory runs far more of PostgreSQL than serving does. A module of its own per database lets that code go
 * with the database that ran it (docs/performance.md, "Embedded store").
 */
const compilePostgres = async (): Promise<PostgresModule> => WebAssembly.compile(await readFile(PGLITE_WASM));

/** A compiled WebAssembly module, as PGlite takes it. */
type PostgresModule = NonNullable<PGliteOptions["pgliteWasmModule"]>;
/** The one function of the WebAssembly JS API used here (the project's `lib` setting does not declare it). */
declare const WebAssembly: { readonly compile: (bytes: Uint8Array) => Promise<PostgresModule> };

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) with its data persisted under `dataDir`, behind
 * `@electric-sql/pglite-socket` on a free loopback port, so the regular `pg`-based MikroORM driver connects
 * to it as to any PostgreSQL server.
 *
 * One connection at a time. PGlite is a single-session database. pglite-socket can multiplex several
 * client connections onto it (`maxConnections`), but it interleaves their protocol messages: two
 * connections running extended-protocol queries (Parse/Bind/Execute/Sync) at once corrupt each other's
 * unnamed statements, and a transaction open on one connection stalls every other one until it ends,
 * which deadlocks a pool. With `maxConnections: 1` it refuses a second connection outright — also a
 * connection opened just after the previous one closed, before it noticed the close.
 *
 * So the port handed out is a gate in front of pglite-socket that lets one client connection through at
 * a time: further connections wait (they are not refused) until the current one has closed and its
 * session has wound down (an open transaction rolled back). The adapter must use a pool of one
 * (`storageOptions`); concurrent requests then queue for that connection in the pool and every
 * transaction runs alone — the isolation of a serial database: correct, not fast. Use a PostgreSQL server
 * when you need concurrency. A second client (say, `migrate`) waits until the pool has released its idle
 * connection, and fails with a connection timeout if that does not happen in time.
 *
 * The adapter of this process (`storageOptions.stream`) takes its turns in the same queue but does not go
 * through TCP: its connections hand their messages to PGlite directly (embedded-stream.ts).
 */
export const startEmbeddedPostgres = async (
  dataDir: string,
  options: { readonly port?: number } = {},
): Promise<EmbeddedPostgres> => {
  await mkdir(dataDir, { recursive: true });
  if (!existsSync(join(dataDir, "PG_VERSION"))) await createDataDir(dataDir);
  // pg_trgm: the trigram indexes of the provider filters (the migrations create the extension).
  const db = await PGlite.create(dataDir, {
    pgliteWasmModule: await compilePostgres(),
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, ...SETTINGS],
  });
  // Connections reach pglite-socket through the gate only, one at a time; the headroom covers the
  // moment in which it has not yet noticed that the previous connection closed.
  const inner = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 });
  let gate: Gate | undefined;
  try {
    await inner.start();
    const innerPort = Number(inner.getServerConn().split(":").at(-1));
    gate = await startGate(
      innerPort,
      options.port ?? 0,
      () => db.closed || (inner.getStats().activeConnections === 0 && !db.isInTransaction()),
      // The next client is a new connection to pg but the same session to PostgreSQL: the named statements
      // the last one prepared would collide with its own ("prepared statement already exists").
      async () => {
        if (!db.closed) await db.exec("deallocate all");
      },
    );
  } catch (error) {
    await inner.stop().catch(() => undefined);
    await db.close();
    throw error;
  }
  const address = gate.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const openGate = gate;
  const waitTurn = gate.waitTurn;
  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    storageOptions: { url, poolSize: 1, idleTimeoutMs: 5_000, stream: () => new EmbeddedStream(db, waitTurn) },
    stop: () => {
      stopped ??= (async () => {
        await closeGate(openGate);
        await inner.stop();
        await db.close();
      })();
      return stopped;
    },
  };
};

/** The initdb worker's module next to this one: dist/embedded-init.js, or the TypeScript source under tests. */
const INIT_WORKER = fileURLToPath(
  new URL(import.meta.url.endsWith(".ts") ? "./embedded-init.ts" : "./embedded-init.js", import.meta.url),
);

/** Runs initdb for a new data directory in a worker thread (embedded-init.ts says why). */
const createDataDir = (dataDir: string) =>
  new Promise<void>((resolve, reject) => {
    const worker = new Worker(INIT_WORKER, { workerData: dataDir });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`creating the embedded database stopped (exit ${code})`)));
    worker.once("message", (message: unknown) => {
      void worker.terminate();
      if (message === "created") resolve();
      else reject(new Error(`creating the embedded database failed: ${JSON.stringify(message)}`));
    });
  });

interface Gate extends Server {
  /** Every client socket the gate holds (waiting or connected), to close them on stop. */
  readonly clients: Set<Socket>;
  /** Admits no more clients. */
  readonly shutDown: () => void;
  /** Queues a turn at the session besides the TCP clients (the adapter's in-process connections). */
  readonly waitTurn: (turn: Turn) => void;
}

/**
 * A loopback TCP server that pipes one client at a time to `innerPort`; the others wait in order, with the
 * in-process connections (`waitTurn`) in the same queue.
 */
const startGate = (
  innerPort: number,
  port: number,
  settled: () => boolean,
  windDown: () => Promise<void>,
): Promise<Gate> => {
  const waiting: Array<Turn> = [];
  // Whether a client had a turn before: its session state is then cleared for the next (`windDown`).
  let used = false;
  const clients = new Set<Socket>();
  let busy = false;
  let closing = false;

  /**
   * Waits (briefly) until the previous session has wound down, clears what it prepared, then lets the next
   * client through.
   */
  const admitNext = () => {
    if (busy || closing) return;
    busy = true;
    const started = Date.now();
    const tryAdmit = () => {
      if (closing) return;
      if (!settled() && Date.now() - started < SETTLE_LIMIT_MS) {
        setTimeout(tryAdmit, 5);
        return;
      }
      let turn = waiting.shift();
      while (turn?.cancelled()) turn = waiting.shift();
      if (turn === undefined) {
        busy = false;
        return;
      }
      let done = false;
      const admit = () =>
        turn.admit(() => {
          if (done) return;
          done = true;
          used = true;
          busy = false;
          admitNext();
        });
      if (used) windDown().then(admit, admit);
      else admit();
    };
    tryAdmit();
  };

  const pipeThrough = (client: Socket, done: () => void) => {
    const upstream = connect(innerPort, "127.0.0.1");
    upstream.setNoDelay(true);
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      client.destroy();
      upstream.destroy();
      done();
    };
    for (const socket of [client, upstream]) {
      socket.on("close", finish);
      socket.on("error", finish);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  };

  const waitTurn = (turn: Turn) => {
    waiting.push(turn);
    admitNext();
  };

  const server = createServer({ pauseOnConnect: true }, (client) => {
    clients.add(client);
    client.on("close", () => clients.delete(client));
    client.on("error", () => client.destroy());
    client.setNoDelay(true);
    waitTurn({ cancelled: () => client.destroyed, admit: (done) => pipeThrough(client, done) });
  }) as Gate;
  Object.assign(server, {
    clients,
    shutDown: () => {
      closing = true;
    },
    waitTurn,
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve(server);
    });
  });
};

const closeGate = (server: Server) =>
  new Promise<void>((resolve) => {
    (server as Gate).shutDown();
    for (const client of (server as Gate).clients) client.destroy();
    server.close(() => resolve());
  });
