import { Schema } from "effect";
import { GitConnectionKind, GitSyncState } from "./git-connection-schema.js";

/** A stored git connection; `tokenCipher` is the token encrypted by the SecretCipher. */
export const GitConnectionRow = Schema.Struct({
  id: Schema.String,
  tenant: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  name: Schema.String,
  kind: GitConnectionKind,
  baseURL: Schema.String,
  username: Schema.String,
  tokenCipher: Schema.String,
});
export type GitConnectionRow = typeof GitConnectionRow.Type;

/**
 * The git outbox entry of one server (one row per server that ever had a connection): the count of changes
 * noted (`changeSeq`) and of those pushed (`pushedSeq`), so a push in flight never hides a later change;
 * when it may next be tried; who holds it (a lease, so two instances never push the same change); and what
 * the last push did.
 */
export const GitSyncRow = Schema.Struct({
  serverId: Schema.String,
  tenant: Schema.String,
  state: GitSyncState,
  changeSeq: Schema.Number,
  pushedSeq: Schema.Number,
  /** The last change noted. */
  changedAt: Schema.DateFromSelf,
  /** The first change not yet pushed; null when nothing is pending. */
  pendingSince: Schema.NullOr(Schema.DateFromSelf),
  /** Failed attempts since the last success or change (the backoff grows with it). */
  attempts: Schema.Number,
  nextAttemptAt: Schema.DateFromSelf,
  leaseOwner: Schema.NullOr(Schema.String),
  leaseUntil: Schema.NullOr(Schema.DateFromSelf),
  commit: Schema.String,
  pushedAt: Schema.NullOr(Schema.DateFromSelf),
  error: Schema.String,
  /** The repository URL and folder of the last push (to remove the old folder after a rename). */
  pushedRepo: Schema.String,
  pushedFolder: Schema.String,
});
export type GitSyncRow = typeof GitSyncRow.Type;

/** What the worker asks for when it claims due outbox entries. */
export interface GitSyncClaim {
  /** Who claims (an instance id); the lease is theirs until `leaseUntil`. */
  readonly owner: string;
  readonly now: Date;
  readonly leaseUntil: Date;
  /** Entries whose last change is at or before this time are settled (the burst is over). */
  readonly quietSince: Date;
  /** Entries pending since at or before this time are due even if changes keep coming. */
  readonly pendingBefore: Date;
  readonly limit: number;
}

/** The part of a claim that decides which entries are due (a cheap check before claiming). */
export type GitSyncDue = Pick<GitSyncClaim, "now" | "quietSince" | "pendingBefore">;

/** How a claimed push ended. */
export type GitSyncOutcome =
  | {
      readonly kind: "pushed";
      /** The changeSeq the push was made for (later changes stay pending). */
      readonly seq: number;
      readonly commit: string;
      readonly at: Date;
      readonly repo: string;
      readonly folder: string;
    }
  | { readonly kind: "failed"; readonly error: string; readonly retryAt: Date };

/** The writes of one transaction that concern git sync: servers written, providers whose version moved. */
export interface GitSyncChanges {
  readonly serverIds: ReadonlyArray<string>;
  readonly providerIds: ReadonlyArray<string>;
}
