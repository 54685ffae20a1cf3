import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { join } from "node:path";
import { EmbeddedStream, type Turn } from "./embedded-stream.js";
import { DatabaseThread } from "./embedded-thread-link.js";

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
    /** This process is the database's only user: nobody else listens for its commits. */
    readonly notifyChanges: false;
  };
  /** CPU time of the database's thread so far, in microseconds (benchmarks split a write's CPU by thread). */
  readonly threadCpuUsage: () => Promise<{ readonly user: number; readonly system: number }>;
  /** Stops listening, closes every connection and closes the database (flushing it to `dataDir`). */
  readonly stop: () => Promise<void>;
  /** Ends the database's thread at once, as a crash would (tests: the store must answer Unavailable). */
  readonly kill: () => Promise<void>;
}

/** How long a finished connection's session may take to wind down before the next client is let in. */
const SETTLE_LIMIT_MS = 2_000;

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) on a thread of its own (embedded-thread.ts) with its
 * data persisted under `dataDir`, behind `@electric-sql/pglite-socket` on a free loopback port, so the
 * regular `pg`-based MikroORM driver connects to it as to any PostgreSQL server.
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
 * through TCP: its connections hand their messages to PGlite's thread directly (embedded-stream.ts).
 * If that thread dies, every request fails with the store's Unavailable (embedded-thread-link.ts).
 */
export const startEmbeddedPostgres = async (
  dataDir: string,
  options: { readonly port?: number } = {},
): Promise<EmbeddedPostgres> => {
  await mkdir(dataDir, { recursive: true });
  if (!existsSync(join(dataDir, "PG_VERSION"))) await createDataDir(dataDir);
  // PGlite and pglite-socket live on the database's thread; this thread keeps the gate (the queue of turns)
  // and relays the in-process connections' bytes (docs/decisions.md, "Embedded database on its own thread").
  const { thread, innerPort } = await DatabaseThread.start(dataDir);
  let gate: Gate | undefined;
  try {
    gate = await startGate(
      innerPort,
      options.port ?? 0,
      // A thread that is gone has nothing to wind down: the next client learns it when it connects.
      () => (thread.gone !== undefined ? Promise.resolve(true) : thread.request("settled")),
      () => thread.request("windDown"),
    );
  } catch (error) {
    await thread.stop().catch(() => undefined);
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
    storageOptions: {
      url,
      poolSize: 1,
      idleTimeoutMs: 5_000,
      stream: () => new EmbeddedStream(thread, waitTurn),
      notifyChanges: false,
    },
    threadCpuUsage: () => thread.request("cpuUsage"),
    stop: () => {
      stopped ??= (async () => {
        await closeGate(openGate);
        // A thread that crashed has nothing left to flush.
        if (thread.gone === undefined) await thread.stop();
      })();
      return stopped;
    },
    kill: () => thread.kill(),
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
  settled: () => Promise<boolean>,
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
      // The session's state is the database thread's: asked, not read.
      settled().then(
        (free) => (free || Date.now() - started >= SETTLE_LIMIT_MS ? admitFirst() : setTimeout(tryAdmit, 5)),
        () => admitFirst(),
      );
    };
    const admitFirst = () => {
      if (closing) return;
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
