import { serverTokenExpired } from "@mcpsm/domain/mcp";
// The most answers kept by default: MCP_ADMISSION_MEMO_ENTRIES (config.ts).
import { DEFAULT_ADMISSION_MEMO_ENTRIES } from "../config.js";

const always = () => true;

interface Kept<T> {
  readonly value: T;
  /** When the token expires (null: never), as the domain read it. */
  readonly expiresAt: Date | null;
}

/**
 * The MCP gate's answers to server-token requests (the domain's authentication, the server as of now, the
 * domain's access rule), kept per (server, credential digest) and replayed as they were while the store's
 * change stamp (`Storage.changeStamp`) is still the one taken before the reads they came from: nothing was
 * committed since, by this instance or, as far as the store vouches, another. A revoked token, a changed
 * server or provider moves the stamp, and every answer goes. The one rule that depends on time, the token's
 * expiry, is checked on each replay with the domain's own function against the clock the domain reads
 * (Effect's default Clock is `Date.now`). No stamp (a store without one, or one that cannot vouch now): nothing
 * is kept or replayed; what was kept waits for the store to vouch again for the stamp it was kept under. Only
 * admissions are kept; a refusal is worked out anew every time.
 */
export class AdmissionMemo<T> {
  private readonly entries = new Map<string, Kept<T>>();
  /** The stamp the entries were kept under; they all go when it moves. */
  private keptUnder: number | undefined;
  private stampOf: () => number | undefined = () => undefined;
  /** Answers replayed (tests and diagnostics). */
  replays = 0;

  constructor(
    private readonly max = DEFAULT_ADMISSION_MEMO_ENTRIES,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Where the stamp comes from: the store's, once the runtime has it (until then nothing is kept). */
  useStamp(stampOf: () => number | undefined): void {
    this.stampOf = stampOf;
  }

  /** The stamp to pass to `keep` with an answer whose reads begin now. */
  stamp(): number | undefined {
    return this.stampOf();
  }

  /**
   * The answer kept for `key`, if the stamp has not moved since, its token has not expired and `usable` (what
   * the caller asks of it besides) says yes.
   */
  replay(key: string, usable: (value: T) => boolean = always): T | undefined {
    if (this.entries.size === 0) return undefined;
    const stamp = this.stampOf();
    // The store cannot vouch right now (its echoes are late): nothing is replayed, nothing dropped. Should it
    // vouch again for the same stamp, every change committed meanwhile was heard and none moved it, so what was
    // kept under it is still current (the point-read cache's own rule for an entry of any age).
    if (stamp === undefined) return undefined;
    if (stamp !== this.keptUnder) {
      this.entries.clear();
      return undefined;
    }
    const kept = this.entries.get(key);
    if (kept === undefined) return undefined;
    if (serverTokenExpired(kept.expiresAt, this.now()) || !usable(kept.value)) {
      this.entries.delete(key);
      return undefined;
    }
    this.replays++;
    return kept.value;
  }

  /**
   * Keeps `value` for `key` if the stamp is still `before` (taken before the reads it came from began): an
   * answer whose reads overlapped a commit may predate it and is not kept. The oldest kept answer goes first.
   */
  keep(key: string, before: number | undefined, value: T, expiresAt: Date | null): void {
    if (before === undefined || this.stampOf() !== before) return;
    if (this.keptUnder !== before) {
      this.entries.clear();
      this.keptUnder = before;
    }
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAt });
  }

  /** How many answers are kept. */
  get size(): number {
    return this.entries.size;
  }
}
