// One copy per key of what compiled servers derive alike, shared by every kept server that uses it: a compiled
// tool per (tool version, provider version, what the server changes about it), and a tool set (a server's
// lookup map, list and search index of its tools) per sequence of such tools. 10,000 servers of the same
// 50 tools hold 50 definitions and one tool set, not 500,000 definitions and 10,000 maps, and compile the 50
// once. Held by the compiled-server cache: an entry lives while a kept server uses it (counted), so a changed
// or deleted tool goes when the last server that used it is recompiled or evicted.

interface Shared<T> {
  readonly key: string;
  readonly value: T;
  /** The estimated bytes of what only this entry holds. */
  readonly bytes: number;
  /** The kept servers that use it. */
  holders: number;
}

/** Values interned by what makes them differ, counted by the kept servers that hold them; see above. */
export class InternTable<T extends object> {
  private readonly byKey = new Map<string, Shared<T>>();
  private readonly byValue = new WeakMap<T, Shared<T>>();
  /** The estimated bytes of every value held by at least one kept server. */
  heldBytes = 0;

  /** `estimate`: the bytes a value holds, counted once however many servers hold it. */
  constructor(private readonly estimate: (value: T) => number) {}

  /** The value of `key`: the one already made, else `make`'s (kept once `hold` is called for it). */
  intern(key: string, make: () => T): T {
    const found = this.byKey.get(key);
    if (found !== undefined) return found.value;
    const value = make();
    const shared: Shared<T> = { key, value, bytes: this.estimate(value), holders: 0 };
    this.byKey.set(key, shared);
    this.byValue.set(value, shared);
    return value;
  }

  /** One more kept server uses `value`; the bytes this adds to what the table holds (0 when shared). */
  hold(value: T): number {
    const shared = this.byValue.get(value);
    if (shared === undefined) return 0;
    shared.holders++;
    if (shared.holders > 1) return 0;
    this.heldBytes += shared.bytes;
    // Interned again if it had been let go of meanwhile (and nothing newer took its key).
    if (!this.byKey.has(shared.key)) this.byKey.set(shared.key, shared);
    return shared.bytes;
  }

  /** A kept server that used `value` is gone; the value goes with the last one. */
  release(value: T): void {
    const shared = this.byValue.get(value);
    if (shared === undefined || shared.holders === 0) return;
    shared.holders--;
    if (shared.holders > 0) return;
    this.heldBytes -= shared.bytes;
    this.forget(shared);
  }

  /** Drops the values interned but never held (a compile whose server was not kept). */
  dropUnheld(values: Iterable<T>): void {
    for (const value of values) {
      const shared = this.byValue.get(value);
      if (shared !== undefined && shared.holders === 0) this.forget(shared);
    }
  }

  private forget(shared: Shared<T>): void {
    // A newer value of the same key may have replaced it meanwhile: only its own entry is removed.
    if (this.byKey.get(shared.key) === shared) this.byKey.delete(shared.key);
  }

  /** How many distinct values are interned. */
  get size(): number {
    return this.byKey.size;
  }
}
