import { Effect, Schema } from "effect";
import { NotFound } from "../errors/domain-errors.js";
import { pageLimit, readKeysetPage } from "../listing/keyset-page.js";
import { queryDecoder } from "../listing/query-parameters.js";
import { Storage } from "../storage/storage-port.js";
import type { CallCursor, CallTally, ToolTally } from "../storage/call-log-port.js";
import type { Actor } from "../tenancy/actor.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { now, read } from "../use-case/use-case-kit.js";
import { invalid } from "../validation/decode-write.js";
import { validateInput } from "../validation/validate-input.js";
import {
  CallListParameters,
  type CallListQuery,
  type CallStatus,
  type ToolCallPage,
  type ToolCallRow,
  toToolCallRecord,
} from "./call-log-schema.js";
import { percentileOf } from "./latency-histogram.js";
import {
  MAX_USAGE_BUCKETS,
  USAGE_BUCKETS,
  type UsageBucket,
  type UsageFigures,
  UsageParameters,
  type UsageQuery,
  type UsageReport,
  type ToolUsage,
} from "./usage-schema.js";

/** Decodes the query string of `GET /servers/{id}/calls` (every bad, repeated or unknown parameter at once). */
export const decodeCallListQuery = queryDecoder(CallListParameters);

/** Decodes the query string of the usage routes. */
export const decodeUsageQuery = queryDecoder(UsageParameters);

const calls = Effect.map(Storage, (storage) => storage.calls);

/** The server when it is the actor's tenant's; 404 otherwise (another tenant's server is as missing). */
const ownServer = (actor: Actor, serverId: string) =>
  read((tx) =>
    Effect.flatMap(tx.findServer(serverId), (row) =>
      row !== undefined && row.tenant === actor.tenant
        ? Effect.succeed(row)
        : Effect.fail(new NotFound({ kind: "server", id: serverId })),
    ),
  );

/** A call listing's input: the server and the decoded query. */
export interface ServerCallsInput {
  readonly serverId: string;
  readonly query: CallListQuery;
}

/** One page of a server's calls, newest first (`GET /servers/{id}/calls`). */
export const listServerCalls = defineUseCase("listServerCalls", (actor: Actor, input: ServerCallsInput) =>
  Effect.gen(function* () {
    const { query } = input;
    yield* validateInput("", Schema.typeSchema(CallListParameters), query);
    yield* ownServer(actor, input.serverId);
    const filters = {
      server: input.serverId,
      tool: query.tool || undefined,
      status: (query.status || undefined) as CallStatus | undefined,
      since: query.since ? Date.parse(query.since) : undefined,
    };
    const listing = {
      tenant: actor.tenant,
      // The "calls" prefix keeps another listing's token from being replayed here.
      filterKey: JSON.stringify(["calls", filters]),
      timeKey: "c",
      limit: pageLimit(query.limit),
      token: query.token,
      cursorOf: (row: ToolCallRow) => ({ at: row.at, id: row.id }),
    };
    const store = yield* calls;
    const page = yield* readKeysetPage(listing, (after, limit) =>
      store.searchCalls({
        tenant: actor.tenant,
        serverId: input.serverId,
        tool: filters.tool,
        status: filters.status,
        since: filters.since === undefined ? undefined : new Date(filters.since),
        after,
        limit,
      }),
    );
    const { matchCount, nextToken } = page;
    return { calls: page.items.map(toToolCallRecord), matchCount, nextToken } satisfies ToolCallPage;
  }),
);

/** What a live tail asks: the server, and the last call it has shown (none: start from now). */
export interface CallTailInput {
  readonly serverId: string;
  readonly after: CallCursor;
}

/**
 * The server's calls after `after` (in time, then id), oldest first, at most 100: one step of the live tail
 * (`GET /servers/{id}/calls/stream`). Needs what a listing needs (server:read, the tenant's server).
 */
export const tailServerCalls = defineUseCase("listServerCalls", (actor: Actor, input: CallTailInput) =>
  Effect.gen(function* () {
    yield* ownServer(actor, input.serverId);
    const store = yield* calls;
    const page = yield* store.searchCalls({
      tenant: actor.tenant,
      serverId: input.serverId,
      since: input.after.at,
      limit: 100,
    });
    const { at, id } = input.after;
    const newer = page.items.filter(
      (row) => row.at.getTime() > at.getTime() || (row.at.getTime() === at.getTime() && row.id > id),
    );
    return newer.reverse().map((row) => ({ record: toToolCallRecord(row), cursor: { at: row.at, id: row.id } }));
  }),
);

/** errors / calls to four places; 0 without calls. */
const errorRateOf = (tally: { readonly calls: number; readonly errors: number }) =>
  tally.calls === 0 ? 0 : Math.round((tally.errors / tally.calls) * 10_000) / 10_000;

const figuresOf = (tally: CallTally): UsageFigures => ({
  calls: tally.calls,
  errors: tally.errors,
  errorRate: errorRateOf(tally),
  p50LatencyMs: percentileOf(tally.latency, 0.5),
  p95LatencyMs: percentileOf(tally.latency, 0.95),
  tokens: tally.tokens,
});

const sumTallies = (tallies: ReadonlyArray<CallTally>): CallTally => {
  const latency: Array<number> = [];
  let callsN = 0;
  let errors = 0;
  let tokens = 0;
  for (const t of tallies) {
    callsN += t.calls;
    errors += t.errors;
    tokens += t.tokens;
    t.latency.forEach((n, i) => {
      latency[i] = (latency[i] ?? 0) + n;
    });
  }
  return { calls: callsN, errors, tokens, latency };
};

const HOUR_MS = 3_600_000;

const toolUsageOf = (tally: ToolTally): ToolUsage => ({
  tool: tally.tool,
  calls: tally.calls,
  errors: tally.errors,
  errorRate: errorRateOf(tally),
  averageTokensBefore: tally.calls === 0 ? 0 : Math.round(tally.tokensBefore / tally.calls),
  averageTokensAfter: tally.calls === 0 ? 0 : Math.round(tally.tokensAfter / tally.calls),
});

/** The usage of the actor's tenant, or of one of its servers, over a window cut in whole buckets. */
const usage = (actor: Actor, serverId: string | undefined, query: UsageQuery) =>
  Effect.gen(function* () {
    yield* validateInput("", Schema.typeSchema(UsageParameters), query);
    if (serverId !== undefined) yield* ownServer(actor, serverId);
    const bucket: UsageBucket = (query.bucket || "hour") as UsageBucket;
    const width = USAGE_BUCKETS[bucket] * 1000;
    const untilMs = query.until ? Date.parse(query.until) : (yield* now).getTime();
    const sinceMs = query.since ? Date.parse(query.since) : untilMs - 86_400_000;
    // Whole buckets: the window widens to bucket boundaries (multiples of the width since the epoch).
    const since = Math.floor(sinceMs / width) * width;
    const until = Math.ceil(untilMs / width) * width;
    if (until <= since) return yield* invalid([{ path: "since", message: "must be before until" }]);
    if ((until - since) / width > MAX_USAGE_BUCKETS)
      return yield* invalid([
        { path: "bucket", message: `the window holds more than ${MAX_USAGE_BUCKETS} buckets; choose a wider bucket` },
      ]);
    const store = yield* calls;
    const tallies = yield* store.callUsage({
      tenant: actor.tenant,
      serverId,
      since: new Date(since),
      until: new Date(until),
      bucketSeconds: width / 1000,
    });
    // Per tool, a store keeps hours: the window widens to whole hours (a minute series' hour or two).
    const tools =
      serverId === undefined
        ? []
        : yield* store.toolUsage({
            tenant: actor.tenant,
            serverId,
            since: new Date(Math.floor(since / HOUR_MS) * HOUR_MS),
            until: new Date(Math.ceil(until / HOUR_MS) * HOUR_MS),
          });
    return {
      since: new Date(since).toISOString(),
      until: new Date(until).toISOString(),
      bucket,
      totals: figuresOf(sumTallies(tallies.servers)),
      series: tallies.buckets.map((b) => ({ at: b.start.toISOString(), ...figuresOf(b) })),
      servers: [...tallies.servers]
        .sort((a, b) => b.calls - a.calls || (a.serverId < b.serverId ? -1 : 1))
        .map((s) => ({ serverId: s.serverId, ...figuresOf(s) })),
      tools: [...tools]
        .sort((a, b) => b.calls - a.calls || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0))
        .map(toolUsageOf),
    } satisfies UsageReport;
  });

/** A server usage's input: the server and the decoded query. */
export interface ServerUsageInput {
  readonly serverId: string;
  readonly query: UsageQuery;
}

/** One server's usage over time (`GET /servers/{id}/usage`). */
export const getServerUsage = defineUseCase("getServerUsage", (actor: Actor, input: ServerUsageInput) =>
  usage(actor, input.serverId, input.query),
);

/** The actor's tenant's usage over time and per server (`GET /usage`). */
export const getTenantUsage = defineUseCase("getTenantUsage", (actor: Actor, query: UsageQuery) =>
  usage(actor, undefined, query),
);

/** How many calls one prune deletes at most, so pruning never holds long locks. */
export const CALL_PRUNE_BATCH = 5_000;

/** Deletes the calls older than `retentionDays` (every tenant's), in batches; answers how many went. */
export const pruneToolCalls = (retentionDays: number, batch: number = CALL_PRUNE_BATCH) =>
  Effect.gen(function* () {
    const cutoff = new Date((yield* now).getTime() - retentionDays * 86_400_000);
    const store = yield* calls;
    let total = 0;
    for (;;) {
      const deleted = yield* store.pruneCalls(cutoff, batch);
      total += deleted;
      if (deleted < batch) return total;
    }
  });

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const CALL_LOG_USE_CASES = { listServerCalls, getServerUsage, getTenantUsage } as const;
