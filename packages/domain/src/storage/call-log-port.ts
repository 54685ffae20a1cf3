import type { Effect } from "effect";
import type { CallStatus, ToolCallRow } from "../call-log/call-log-schema.js";
import type { Unavailable } from "../errors/domain-errors.js";
import type { PageCursor } from "../listing/page-cursor.js";
import type { StoredPage } from "./stored-page.js";

// The tool-call log's part of the storage port (docs/api-rules.md §24). Calls are telemetry, not records:
// they are appended in batches outside any transaction, and a store may keep aggregates beside them (the
// PostgreSQL store keeps per-minute counts), so writing them never disturbs the records' caches.

/** The most a call listing counts: beyond it, `matchCount` says "at least this many". */
export const CALL_MATCH_COUNT_CAP = 10_000;

/** A position in the call order (newest first: time, then id, both descending): a page starts after it. */
export type CallCursor = PageCursor;

/** A filtered, paged search of one server's calls, newest first. */
export interface CallSearch {
  readonly tenant: string;
  readonly serverId: string;
  readonly tool?: string | undefined;
  readonly status?: CallStatus | undefined;
  /** Only calls at or after this time. */
  readonly since?: Date | undefined;
  readonly after?: CallCursor | undefined;
  readonly limit: number;
}

/** One page of a call search, and how many calls match over all pages (at most CALL_MATCH_COUNT_CAP). */
export type CallPage = StoredPage<ToolCallRow>;

/** Counts of a set of calls: errors are calls whose status is not `ok`; latency per LATENCY_BOUNDS_MS bucket. */
export interface CallTally {
  readonly calls: number;
  readonly errors: number;
  readonly tokens: number;
  readonly latency: ReadonlyArray<number>;
}

/**
 * The calls of a tenant (or of one of its servers) whose minute starts in [since, until), counted per bucket
 * of `bucketSeconds` (a multiple of 60; buckets start at multiples of it since the epoch) and per server.
 */
export interface CallUsageQuery {
  readonly tenant: string;
  readonly serverId?: string | undefined;
  readonly since: Date;
  readonly until: Date;
  readonly bucketSeconds: number;
}

/** The tallies of a usage query: the buckets that had calls, oldest first, and every server that had calls. */
export interface CallUsage {
  readonly buckets: ReadonlyArray<CallTally & { readonly start: Date }>;
  readonly servers: ReadonlyArray<CallTally & { readonly serverId: string }>;
}

/** One server's calls in whole hours, per tool. */
export interface ToolUsageQuery {
  readonly tenant: string;
  readonly serverId: string;
  /** Both at whole hours: a store may keep per-tool counts per hour only. */
  readonly since: Date;
  readonly until: Date;
}

/**
 * One tool's calls: `tokensBefore` sums the results' tokens before shaping, `tokensAfter` the tokens the
 * caller received (after shaping where shaping saw the answer, else the same as before).
 */
export interface ToolTally {
  readonly tool: string;
  readonly calls: number;
  readonly errors: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

/** The tool-call log: appended off the request path, listed per server, aggregated, pruned by age. */
export interface CallLogStore {
  /** Stores a batch of calls (of any tenants), all or none. */
  readonly appendCalls: (rows: ReadonlyArray<ToolCallRow>) => Effect.Effect<void, Unavailable>;
  readonly searchCalls: (search: CallSearch) => Effect.Effect<CallPage, Unavailable>;
  readonly callUsage: (query: CallUsageQuery) => Effect.Effect<CallUsage, Unavailable>;
  /** The server's tools that had calls whose hour starts in [since, until), in no set order. */
  readonly toolUsage: (query: ToolUsageQuery) => Effect.Effect<ReadonlyArray<ToolTally>, Unavailable>;
  /** Deletes up to `limit` calls (of any tenant) older than `before`, and their aggregates; answers how many. */
  readonly pruneCalls: (before: Date, limit: number) => Effect.Effect<number, Unavailable>;
}
