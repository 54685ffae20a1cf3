/**
 * Access tokens already verified, with what they proved, until they expire. Verifying an ES256 signature
 * costs more CPU than the rest of a cached read; a client sends the same token for its whole lifetime, so
 * the verification is done once per token. Only successes are kept (a flood of forged tokens cannot push
 * real ones out), bounded, least recently used out. A token is served from here only before its `exp`; a key
 * removed from the key set stops new tokens at once, while those already verified with it run to their
 * `exp`, as they would at any resource server that validated them before the rotation.
 */
export class VerifiedTokenCache<T> {
  private readonly entries = new Map<string, { readonly value: T; readonly expiresAtMs: number }>();

  constructor(private readonly maxEntries = 10_000) {}

  /** What `token` proved, when it was verified before and has not expired since. */
  get(token: string, nowMs = Date.now()): T | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    this.entries.delete(token);
    if (entry.expiresAtMs <= nowMs) return undefined;
    this.entries.set(token, entry);
    return entry.value;
  }

  /** Keeps what `token` proved until `expiresAtMs`. */
  set(token: string, value: T, expiresAtMs: number): void {
    this.entries.delete(token);
    this.entries.set(token, { value, expiresAtMs });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
