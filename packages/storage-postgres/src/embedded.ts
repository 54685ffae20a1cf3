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
   * The connection options the adapter needs here: a small pool of in-process connections sharing the
   * session (`IN_PROCESS_POOL`), released after a few idle seconds so that another client (a migration, a
   * shell) gets its turn. Spread them into `makePostgresStorage({ ...embedded.storageOptions })`. A client
   * over TCP (`url`, `migrate`) must use one connection: TCP clients take the session one at a time.
   */
  readonly storageOptions: {
    readonly url: string;
    readonly poolSize: number;
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
 * The adapter's pooled connections in this process. They share PGlite's one session, which runs their
 * batches one after another, a transaction's alone: several connections let the database's thread go on to
 * the next request's batch while the service's thread is busy, instead of waiting for it to hand the one
 * connection over (docs/decisions.md, "embwrites").
 */
const IN_PROCESS_POOL = 4;

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) on a thread of its own (embedded-thread.ts) with its
 * data persisted under `dataDir`, behind `@electric-sql/pglite-socket` on a free loopback port, so the
 * regular `pg`-based MikroORM driver connects to it as to any PostgreSQL server.
 *
 * One client at a time. PGlite is a single-session database. pglite-socket can multiplex several
 * client connections onto it (`maxConnections`), but it interleaves their protocol messages: two
 * connections running extended-protocol queries (Parse/Bind/Execute/Sync) at once corrupt each other's
 * unnamed statements, and a transaction open on one connection stalls every other one until it ends,
 * which deadlocks a pool. With `maxConnections: 1` it refuses a second connection outright — also a
 * connection opened just after the previous one closed, before it noticed the close.
 *
 * So the port handed out is a gate in front of pglite-socket that lets one client connection through at
 * a time: further connections wait (they are not refused) until the current one has closed and its
 * session has wound down (an open transaction rolled back). A client over TCP must use one connection
 * (`migrate` with `poolSize: 1`). A second client (say, `migrate`) waits until the adapter's pool has
 * released its idle connections, and fails with a connection timeout if that does not happen in time.
 *
 * The adapter of this process (`storageOptions.stream`) does not go through TCP: its connections hand their
 * messages to PGlite's thread directly (embedded-stream.ts), and they are one client to the gate (one turn
 * for all of them, `SharedTurn`). The thread runs their batches one after another (whole batches: a
 * statement's Parse … Sync, or a simple query, never cut), a transaction's alone until it ends: every
 * transaction runs alone, as in a serial database, while the statements outside one (the reads ahead of a
 * write, the call log) need not wait for a connection of their own to be handed over.
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
  const shared = new SharedTurn(gate.waitTurn);
  const enter = (turn: Turn) => shared.enter(turn);
  let connections = 0;
  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    storageOptions: {
      url,
      poolSize: IN_PROCESS_POOL,
      idleTimeoutMs: 5_000,
      stream: () => new EmbeddedStream(thread, enter, ++connections),
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

/**
 * One turn of the gate for all the in-process connections: the first to connect asks for it, the others join
 * it while it lasts, and it ends when the last of them has closed (each after its own wind-down on the
 * thread: a transaction it left open rolled back). So a TCP client still has the session to itself, and the
 * gate's `deallocate all` between turns still comes when no pg connection is left that counted on what was
 * prepared; `session` is a new object each turn, for what the connections share in it meanwhile.
 */
class SharedTurn {
  #open = 0;
  #done: (() => void) | undefined;
  #session: object = {};
  readonly #waiting: Array<Turn> = [];
  #asked = false;

  constructor(private readonly waitTurn: (turn: Turn) => void) {}

  enter(turn: Turn): void {
    if (this.#done !== undefined) {
      this.#admit(turn);
      return;
    }
    this.#waiting.push(turn);
    if (this.#asked) return;
    this.#asked = true;
    this.waitTurn({
      // Never given up as a whole: a connection that gave up is skipped when the turn comes.
      cancelled: () => false,
      admit: (done) => {
        this.#asked = false;
        this.#done = done;
        this.#session = {};
        // Held while admitting, so that a connection that leaves at once does not end the turn under the others.
        this.#open++;
        for (const waiting of this.#waiting.splice(0)) if (!waiting.cancelled()) this.#admit(waiting);
        this.#leave();
      },
    });
  }

  #admit(turn: Turn) {
    this.#open++;
    let left = false;
    turn.admit(() => {
      if (left) return;
      left = true;
      this.#leave();
    }, this.#session);
  }

  #leave() {
    this.#open--;
    if (this.#open > 0) return;
    const done = this.#done;
    this.#done = undefined;
    done?.();
  }
}

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
