import { randomBytes } from "node:crypto";
import pg from "pg";

/** The channel every transaction of the adapter notifies as it commits, so every instance hears every change. */
export const CHANGES_CHANNEL = "mcpsm_changes";

/**
 * The statement that ends a transaction of the adapter: COMMIT, then the change notification in a
 * transaction of its own, in one round trip (a simple query of several statements; what follows COMMIT runs
 * only when it succeeded). Not NOTIFY inside the transaction: PostgreSQL serialises the commits of notifying
 * transactions (a lock held through the commit's WAL flush), which would queue concurrent writers behind one
 * another's disk flushes. The notification's own commit does not wait for the disk (a notification lost in a
 * crash has nobody left to tell).
 */
export const COMMIT_AND_NOTIFY = `commit work; set local synchronous_commit to off; notify ${CHANGES_CHANNEL}`;

/** What the listener reports. */
export interface ChangeListenerEvents {
  /** A change was committed (by any instance, this one included). */
  readonly onChange: () => void;
  /** Whether notifications are being received: false when the connection was lost, true once listening again. */
  readonly onListening: (listening: boolean) => void;
  /**
   * A ping sent at `sentAt` (by `now`) came back: every change committed before then has been reported.
   * Pings are sent every PING_INTERVAL_MS while listening, one at a time.
   */
  readonly onHeard?: (sentAt: number) => void;
  /** A connection attempt or the connection failed (it is retried). */
  readonly onError?: (error: Error) => void;
  /** The clock of `onHeard` (milliseconds); `performance.now` by default. */
  readonly now?: () => number;
}

/** How often the listener proves its connection alive with a notification to itself. */
export const PING_INTERVAL_MS = 100;

/** A running listener. */
export interface ChangeListener {
  readonly close: () => Promise<void>;
}

const RETRY_START_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * Listens on `CHANGES_CHANNEL` over a connection of its own (not a pooled one: LISTEN belongs to a session),
 * reconnecting with a growing delay after a loss. Starts connecting at once; `onListening(true)` says when
 * notifications are being heard.
 */
export const listenForChanges = (url: string, events: ChangeListenerEvents): ChangeListener => {
  let closed = false;
  let client: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let pingTimer: NodeJS.Timeout | undefined;
  let delay = RETRY_START_MS;
  const now = events.now ?? (() => performance.now());
  // A channel of this listener's own: its pings are heard by no other instance.
  const pingChannel = `${CHANGES_CHANNEL}_ping_${randomBytes(8).toString("hex")}`;

  const lost = (current: pg.Client, error?: Error) => {
    if (client !== current) return;
    client = undefined;
    clearInterval(pingTimer);
    events.onListening(false);
    if (error !== undefined) events.onError?.(error);
    current.removeAllListeners();
    current.on("error", () => {});
    current.end().catch(() => {});
    if (closed) return;
    retryTimer = setTimeout(connect, delay);
    retryTimer.unref();
    delay = Math.min(delay * 2, RETRY_MAX_MS);
  };

  const connect = () => {
    if (closed) return;
    const current = new pg.Client({ connectionString: url, keepAlive: true });
    client = current;
    // The ping under way (its send time), or none: a ping is sent only once the last one came back, so a
    // stalled connection does not pile pings up, and vouches for nothing until it answers again.
    let pingSentAt: number | undefined;
    current.on("notification", (message) => {
      if (message.channel === CHANGES_CHANNEL) events.onChange();
      else if (message.channel === pingChannel && pingSentAt !== undefined && client === current) {
        const sentAt = pingSentAt;
        pingSentAt = undefined;
        events.onHeard?.(sentAt);
      }
    });
    const ping = () => {
      if (client !== current || pingSentAt !== undefined) return;
      pingSentAt = now();
      current.query(`notify ${pingChannel}`).catch((error: Error) => lost(current, error));
    };
    current.on("error", (error) => lost(current, error));
    current.on("end", () => lost(current, new Error("the notification connection ended")));
    current
      .connect()
      .then(() => current.query(`listen ${CHANGES_CHANNEL}; listen ${pingChannel}`))
      .then(
        () => {
          if (client !== current) return;
          delay = RETRY_START_MS;
          events.onListening(true);
          if (events.onHeard === undefined) return;
          clearInterval(pingTimer);
          pingTimer = setInterval(ping, PING_INTERVAL_MS);
          pingTimer.unref();
          ping();
        },
        (error: Error) => lost(current, error),
      );
  };

  connect();
  return {
    close: async () => {
      closed = true;
      clearTimeout(retryTimer);
      clearInterval(pingTimer);
      const current = client;
      client = undefined;
      if (current !== undefined) {
        current.removeAllListeners();
        current.on("error", () => {});
        await current.end().catch(() => {});
      }
    },
  };
};
