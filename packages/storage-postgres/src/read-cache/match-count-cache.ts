// Match counts of substring-filtered provider listings (`nameContains`, `baseURLContains`), remembered
// between requests. Counting the matches is O(matches) (10,000 rows at 10% of 100,000); paging is O(page).
// An entry is never trusted on its own: it carries the generations of the two scopes the count depends on
// (the viewer's tenant and PUBLIC, provider_generations), and the listing statement uses it only when the
// generations it reads in its own snapshot are the same, counting again otherwise (tx/providers.ts). So a
// remembered count is exact at every moment, on every instance, with no notification to wait for.

/** A count and the generations (`<tenant's>:<PUBLIC's>`) of the snapshot it was counted in. */
export interface RememberedCount {
  readonly generations: string;
  readonly n: number;
}

/** How many entries are kept, and the longest key worth keeping. */
export interface MatchCountCacheOptions {
  /** Entries kept, least recently used out. Default 1,000. */
  readonly maxEntries?: number;
  /**
   * Keys (tenant and filters) longer than this are not kept: hostile long filters cannot make the
   * cache's memory exceed maxEntries × maxKeyLength. Default 512 characters.
   */
  readonly maxKeyLength?: number;
}

/** Remembered match counts keyed by viewer and filters; bounded in entries and key length. */
export class MatchCountCache {
  private readonly entries = new Map<string, RememberedCount>();
  private readonly maxEntries: number;
  private readonly maxKeyLength: number;
  /** Listings whose count was reused, and listings that counted (tests, diagnostics). */
  reused = 0;
  counted = 0;

  constructor(options: MatchCountCacheOptions = {}) {
    this.maxEntries = Math.max(1, options.maxEntries ?? 1_000);
    this.maxKeyLength = Math.max(1, options.maxKeyLength ?? 512);
  }

  /** The count last remembered for `key`, if any (the caller still checks its generations). */
  lookup(key: string): RememberedCount | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Remembers `count` for `key` (replacing an older one), dropping the least recently used beyond the bound. */
  store(key: string, count: RememberedCount): void {
    if (key.length > this.maxKeyLength) return;
    this.entries.delete(key);
    this.entries.set(key, count);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
