// Access tokens kept in memory until shortly before they expire, with at most one fetch in flight per key
// however many calls wait for it (single-flight). Keys never hold a secret in clear.

/** A cached access token and when it stops being used (milliseconds since the epoch). */
export interface CachedToken {
  readonly accessToken: string;
  readonly useUntil: number;
}

/**
 * When a token issued now for `expiresIn` seconds stops being used: a margin before its expiry of a tenth of
 * its life, at least 1 s and at most 60 s (so a clock a little off, or a slow upstream, never sends a token
 * that expires on the way).
 */
export const useUntil = (now: number, expiresIn: number): number => {
  const margin = Math.min(60, Math.max(1, expiresIn / 10));
  return now + Math.max(0, expiresIn - margin) * 1000;
};

/** Tokens per key, each fetched by one request at a time. */
export class TokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly inFlight = new Map<string, Promise<CachedToken>>();

  constructor(
    private readonly now: () => number = Date.now,
    /** Most keys kept; the oldest is dropped beyond it. */
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached token for `key` while usable, else the one `fetch` gets (shared by every concurrent caller). */
  async get(key: string, fetch: () => Promise<CachedToken>): Promise<CachedToken> {
    const cached = this.tokens.get(key);
    if (cached !== undefined && cached.useUntil > this.now()) return cached;
    const running = this.inFlight.get(key);
    if (running !== undefined) return running;
    const started = (async () => {
      try {
        const token = await fetch();
        this.tokens.delete(key);
        this.tokens.set(key, token);
        if (this.tokens.size > this.maxEntries) {
          const oldest = this.tokens.keys().next();
          if (!oldest.done) this.tokens.delete(oldest.value);
        }
        return token;
      } finally {
        this.inFlight.delete(key);
      }
    })();
    this.inFlight.set(key, started);
    return started;
  }

  /** Forgets `key`'s token when it is `accessToken` (an upstream refused it); a newer one stays. */
  forget(key: string, accessToken: string): void {
    if (this.tokens.get(key)?.accessToken === accessToken) this.tokens.delete(key);
  }

  /** How many tokens are cached (tests and metrics). */
  get size(): number {
    return this.tokens.size;
  }
}
