// The answers of the hot point reads (a server and its graph, a provider, a server token by hash), kept
// between requests. One rule makes it correct across instances sharing the database: every entry belongs to
// the *generation* it was read in, and the generation moves on every change anyone commits, so an entry read
// before a change is never served after it. The instance that commits moves it as the COMMIT returns (before
// the writer's answer is sent); every other instance moves it when the change notification of that COMMIT
// arrives (change-listener.ts), or, should that connection be lost silently, when `maxAgeMs` has passed.
//
// `maxAgeMs` bounds staleness, not an entry's life: the listener echoes a ping through PostgreSQL every
// PING_INTERVAL_MS, and notifications arrive in commit order, so the echo of a ping sent at S proves every
// change committed before S was heard. While the last echo's send time is within `maxAgeMs`, an entry of the
// current generation is served whatever its age (a server called every few seconds is not read again each
// time); without echoes (a silent loss), an entry is served for `maxAgeMs` after its read.
//
// A cache whose instance is the database's only writer (`soleWriter`: the embedded database, which one process
// owns) needs no echo: every change is one of its own commits, each of which moves the generation as it
// returns. It vouches for itself: an entry of the current generation is served whatever its age.
import { isDeepStrictEqual } from "node:util";

/** How long an entry may be served, how many are kept. */
export interface PointReadCacheOptions {
  /**
   * The longest an entry is served without a newer read, whatever the notifications say: the bound on
   * staleness when the notification connection is lost without an error (a network partition). Default 500.
   */
  readonly maxAgeMs?: number;
  /**
   * Entries kept, least recently used out, each counted by its weight (`store`: a server's graph weighs its
   * rows, a row weighs 1). Default 40,000: every server's row and token of 10,000 servers called round-robin,
   * and a few hundred graphs, which are what is large (tens of kilobytes each).
   */
  readonly maxEntries?: number;
  /** The clock of `readAt` (milliseconds): `performance.now` unless a test moves time itself. */
  readonly now?: () => number;
}

interface Entry {
  readonly value: unknown;
  /** What it counts against `maxEntries`. */
  readonly weight: number;
  readonly generation: number;
  readonly readAt: number;
  /** The last time it was stored or served: entries idle longer than IDLE_MS are dropped. */
  usedAt: number;
}

/** The default `maxEntries` (see PointReadCacheOptions). */
export const DEFAULT_MAX_ENTRIES = 40_000;

/** While echoes vouch for the cache, entries not used for this long are dropped (they are re-read if needed). */
export const IDLE_MS = 30_000;

/** Point reads keyed by operation and argument, valid for one generation of the database's content. */
export class PointReadCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  /** False while changes made elsewhere could go unnoticed (the notification connection is down). */
  private trusted: boolean;
  /** No other writer: every change is this instance's own commit (`changed` as it returns). */
  private readonly soleWriter: boolean;
  /** The send time of the latest ping heard back on the current notification connection. */
  private heardAt: number | undefined;
  private readonly maxAgeMs: number;
  private readonly maxEntries: number;
  /** The weights of the entries kept. */
  private weight = 0;
  private readonly now: () => number;
  /** The reads under way, by generation and key, that concurrent misses share (cached-point-reads.ts). */
  readonly readsInFlight = new Map<string, Promise<unknown>>();
  /** Rows the entries of `rowsGeneration` share (`shared`), by kind and id. */
  private readonly rows = new Map<string, unknown>();
  private rowsGeneration = -1;
  /** Lookups answered from the cache, and lookups that read the database (tests, diagnostics). */
  hits = 0;
  misses = 0;
  /** Pings heard back (tests, diagnostics). */
  echoes = 0;

  /**
   * `trusted`: whether changes made elsewhere are heard from the start; `soleWriter`: there is no elsewhere
   * (trusted, and vouched for without echoes).
   */
  constructor(options: PointReadCacheOptions & { readonly trusted: boolean; readonly soleWriter?: boolean }) {
    this.maxAgeMs = Math.max(0, options.maxAgeMs ?? 500);
    this.maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
    this.now = options.now ?? (() => performance.now());
    this.soleWriter = options.soleWriter === true;
    this.trusted = options.trusted || this.soleWriter;
  }

  /** The entry of `key` if it is of the current generation and young enough; `found` false otherwise. */
  lookup(key: string): { readonly found: true; readonly value: unknown } | { readonly found: false } {
    const entry = this.entries.get(key);
    if (entry === undefined || !this.isCurrent(entry)) {
      // An entry too old to serve is dropped rather than kept until it is pushed out.
      if (entry !== undefined) this.drop(key, entry);
      this.misses++;
      return { found: false };
    }
    // Most recently used last.
    entry.usedAt = this.now();
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits++;
    return { found: true, value: entry.value };
  }

  /**
   * `row` as an entry read in the current generation already holds it — the same kind, id and content — or else
   * `row`, held from now on: the graphs of many servers hold the rows of the same tools, and one copy of each
   * serves them all (rows are values, never changed in place). Only equal content is shared, so a row read
   * later never turns into an older one; a change starts over. `generation`: the read's; a read that
   * overlapped a change shares nothing (`store` does not keep it either).
   */
  shared<R extends { readonly id: string }>(kind: string, row: R, generation: number): R {
    if (!this.trusted || generation !== this.generation) return row;
    if (this.rowsGeneration !== this.generation || this.rows.size >= this.maxEntries) {
      this.rows.clear();
      this.rowsGeneration = this.generation;
    }
    const key = `${kind}:${row.id}`;
    const held = this.rows.get(key);
    if (held !== undefined && isDeepStrictEqual(held, row)) return held as R;
    this.rows.set(key, row);
    return row;
  }

  /**
   * The entry of `key` if `lookup` would answer it, without counting a lookup or touching its recency: for
   * callers that only ask whether an answer they derived from an entry is still current.
   */
  peek(key: string): unknown {
    const entry = this.entries.get(key);
    return entry !== undefined && this.isCurrent(entry) ? entry.value : undefined;
  }

  /** Whether `lookup` and `peek` may answer `entry`: trusted, of the current generation, vouched for or young. */
  private isCurrent(entry: Entry): boolean {
    if (!this.trusted || entry.generation !== this.generation) return false;
    const now = this.now();
    return this.vouched(now) || now - entry.readAt <= this.maxAgeMs;
  }

  /**
   * Whether a ping sent within `maxAgeMs` was heard back (every change committed before it was heard), or
   * there is nothing to hear (a sole writer moved the generation on each of its commits).
   */
  private vouched(now: number): boolean {
    return this.soleWriter || (this.heardAt !== undefined && now - this.heardAt <= this.maxAgeMs);
  }

  /** A ping sent at `sentAt` (this cache's clock) came back on the notification connection. */
  heard(sentAt: number): void {
    if (!this.trusted) return;
    this.echoes++;
    if (this.heardAt === undefined || sentAt > this.heardAt) this.heardAt = sentAt;
  }

  /**
   * The storage port's change stamp (`Storage.changeStamp`): the generation while echoes vouch for the cache
   * (every change committed over `maxAgeMs` ago was heard, as `lookup` requires of an entry of any age) or
   * always for a sole writer, else undefined: without echoes `lookup` serves an entry only `maxAgeMs` after
   * its read, which a stamp cannot say.
   */
  stamp(): number | undefined {
    // A sole writer first: no clock read on its every request.
    return this.trusted && (this.soleWriter || this.vouched(this.now())) ? this.generation : undefined;
  }

  /** The generation a read starting now belongs to: pass it to `store` with the read's answer. */
  get current(): number {
    return this.generation;
  }

  /**
   * Keeps `value` for `key` unless a change was seen since the read began (it may predate the change);
   * `weight`: what it counts against `maxEntries` (1 for a row).
   */
  store(key: string, value: unknown, readInGeneration: number, readStartedAt: number, weight = 1): void {
    if (!this.trusted || readInGeneration !== this.generation) return;
    const former = this.entries.get(key);
    if (former !== undefined) this.drop(key, former);
    const entry = { value, weight, generation: readInGeneration, readAt: readStartedAt, usedAt: this.now() };
    this.entries.set(key, entry);
    this.weight += weight;
    // The newest entry stays, whatever its weight.
    while (this.weight > this.maxEntries && this.entries.size > 1) {
      const [oldest, held] = this.entries.entries().next().value as [string, Entry];
      this.drop(oldest, held);
    }
    this.dropExpired();
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.weight -= entry.weight;
  }

  /**
   * Drops entries from the least recently used end, up to the first one still worth keeping: used in the
   * last IDLE_MS while echoes vouch for the cache, else read in the last `maxAgeMs` (older ones cannot be
   * served). What the cache holds is then what is in use, not `maxEntries` answers (server graphs of tens of
   * kilobytes each) that can only be pushed out.
   */
  private dropExpired(): void {
    const now = this.now();
    const vouched = this.vouched(now);
    for (const [key, entry] of this.entries) {
      if (vouched ? entry.usedAt >= now - IDLE_MS : entry.readAt >= now - this.maxAgeMs) return;
      this.drop(key, entry);
    }
  }

  /** Something changed (here or elsewhere): no entry read before now is served again. */
  changed(): void {
    this.generation++;
    this.entries.clear();
    this.rows.clear();
    this.weight = 0;
  }

  /**
   * Whether changes made elsewhere are being heard. Untrusted, the cache answers nothing and keeps nothing;
   * trusted again (a notification connection re-established), it starts from a new generation, since
   * changes may have been missed meanwhile.
   */
  setTrusted(trusted: boolean): void {
    this.trusted = trusted;
    // Echoes of one connection vouch for that connection only.
    this.heardAt = undefined;
    this.changed();
  }

  /** True while the cache answers: changes made elsewhere are being heard (or there is no elsewhere). */
  get serving(): boolean {
    return this.trusted;
  }

  get size(): number {
    return this.entries.size;
  }
}
