import { LRUCache } from "lru-cache";
import { tokenDigest } from "./token-digest.js";

/**
 * Access tokens already verified, with what they proved, until they expire. Verifying an ES256 signature
 * costs more CPU than the rest of a cached read; a client sends the same token for its whole lifetime, so
 * the verification is done once per token. Only successes are kept (a flood of forged tokens cannot push
 * real ones out), bounded, least recently used out, keyed by the token's digest. A token is served from here
 * only before its `exp`; a key removed from the key set stops new tokens at once, while those already
 * verified with it run to their `exp`, as they would at any resource server that validated them before the
 * rotation.
 */
export class VerifiedTokenCache<T> {
  // The expiry is checked against the caller's clock on each read (not lru-cache's TTL, which keeps its own).
  private readonly entries: LRUCache<string, { readonly value: T; readonly expiresAtMs: number }>;

  constructor(maxEntries = 10_000) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  /** What `token` proved, when it was verified before and has not expired since. */
  get(token: string, nowMs = Date.now()): T | undefined {
    const key = tokenDigest(token);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs > nowMs) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps what `token` proved until `expiresAtMs`. */
  set(token: string, value: T, expiresAtMs: number): void {
    this.entries.set(tokenDigest(token), { value, expiresAtMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
