import { Duplex } from "node:stream";
import type { DatabaseThread } from "./embedded-thread-link.js";

// The adapter's own connections to the embedded database, without TCP. Over loopback a round trip crossed two
// sockets each way (pg → the gate → pglite-socket), and pglite-socket ran each protocol message on its own
// (Parse, Bind, Describe, Execute and Sync of one statement: five runs of PostgreSQL's loop, each behind a
// setImmediate, a mutex and a promise). This stream hands PGlite every complete message pg wrote at once, in
// one synchronous run, and pushes the answer back (docs/performance.md, "Embedded writes"). PGlite runs on the
// database's own thread (embedded-thread.ts): the batch goes there and the answer comes back, both moved, not
// copied, so that the service's thread serves other requests while PostgreSQL works.

/**
 * A turn at the embedded database's single session: `admit` starts it, `done` (given to it) ends it. The
 * in-process connections share one turn of the gate (embedded.ts, `SharedTurn`), whose `session` object stands
 * for what they share in PGlite's session while it lasts (the statements prepared by SQL: sql-prepared.ts).
 */
export interface Turn {
  /** Whether the connection gave up before its turn came. */
  readonly cancelled: () => boolean;
  readonly admit: (done: () => void, session?: object) => void;
}

/** The length of a startup packet (protocol 3.0: its length, then 196608) at the head of `buffer`, if any. */
const startupLength = (buffer: Buffer) =>
  buffer.length >= 8 && buffer.readInt32BE(4) === 196608 ? buffer.readInt32BE(0) : undefined;

/**
 * A `pg` connection stream (the `stream` option of a `pg` client) to the database on `thread`, which waits
 * for its turn at the session (`waitTurn`: the in-process connections' shared turn, queued with the TCP
 * clients) when pg connects, and ends it when closed: a transaction it left open is rolled back first, as
 * pglite-socket does for a connection that closes. `conn` numbers it for the thread, which runs its batches
 * between the other in-process connections' while none of them has a transaction open.
 */
export class EmbeddedStream extends Duplex {
  #pending: Buffer = Buffer.alloc(0);
  #started = false;
  #done: (() => void) | undefined;
  #ended = false;
  /** What the in-process connections of this turn share in PGlite's session (see `Turn`). */
  session: object | undefined;

  constructor(
    private readonly thread: DatabaseThread,
    private readonly waitTurn: (turn: Turn) => void,
    private readonly conn: number,
  ) {
    super();
  }

  /** What pg calls on a socket: waits for the session, then says "connect". */
  connect(): this {
    // A database that is gone fails the connection at once (the adapter answers Unavailable), without a turn.
    const gone = this.thread.gone;
    if (gone !== undefined) {
      process.nextTick(() => this.destroy(gone));
      return this;
    }
    this.waitTurn({
      cancelled: () => this.destroyed,
      admit: (done, session) => {
        if (this.destroyed) return done();
        this.#done = done;
        this.session = session;
        // Never within connect(): pg listens for "connect" after calling it.
        process.nextTick(() => this.emit("connect"));
      },
    });
    return this;
  }

  // Socket methods pg calls; nothing to do without a socket.
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#receive(chunk, callback);
  }

  // pg corks the messages of one statement (Parse … Sync): they arrive here together, and run in one go.
  override _writev(
    chunks: Array<{ chunk: Buffer; encoding: BufferEncoding }>,
    callback: (error?: Error | null) => void,
  ): void {
    this.#receive(Buffer.concat(chunks.map((c) => c.chunk)), callback);
  }

  #receive(chunk: Buffer, callback: (error?: Error | null) => void): void {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    this.#run().then(
      () => callback(),
      (error: Error) => callback(error),
    );
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#end();
    this.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#end();
    callback(error);
  }

  /** Runs the complete messages received so far: the startup packet alone, then the others in one go. */
  async #run() {
    if (!this.#started) {
      const length = startupLength(this.#pending);
      if (length === undefined || this.#pending.length < length) return;
      this.#started = true;
      await this.#exec(this.#pending.subarray(0, length));
      this.#pending = this.#pending.subarray(length);
    }
    let complete = 0;
    while (complete + 5 <= this.#pending.length) {
      const next = complete + 1 + this.#pending.readInt32BE(complete + 1);
      if (next > this.#pending.length) break;
      // Terminate: the session stays (it is PGlite's only one); the connection ends when pg ends the stream.
      if (this.#pending[complete] === 0x58) break;
      complete = next;
    }
    if (complete === 0) {
      if (this.#pending.length >= 5 && this.#pending[0] === 0x58) this.#pending = Buffer.alloc(0);
      return;
    }
    const messages = this.#pending.subarray(0, complete);
    this.#pending = this.#pending.subarray(complete);
    await this.#exec(messages);
  }

  async #exec(messages: Buffer) {
    if (this.#done === undefined || this.#ended) throw new Error("the embedded database connection is closed");
    // A copy of pg's bytes (they may share a pooled buffer) that the thread then owns: moved, not copied again.
    const answer = await this.thread.request("exec", new Uint8Array(messages), this.conn);
    if (answer !== undefined) this.push(Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength));
  }

  /** Ends the turn once: rolls back what this connection left open, then lets the next client in. */
  #end() {
    if (this.#ended) return;
    this.#ended = true;
    const done = this.#done;
    if (done === undefined) return;
    this.thread.request("endTurn", undefined, this.conn).then(done, done);
  }
}
