import {
  CALL_MATCH_COUNT_CAP,
  type CallLogStore,
  type CallSearch,
  type CallTally,
  emptyHistogram,
  latencyBucketOf,
  type ToolCallRow,
  type ToolTally,
} from "@mcpsm/domain/storage";
import { Effect } from "effect";

// The tool-call log kept in memory: the rows themselves (the usage is counted from them on demand, in the
// per-minute buckets the PostgreSQL store keeps, so both answer the same).

/** Newest first: time, then id (code unit order), both descending. */
const newerFirst = (a: { at: Date; id: string }, b: { at: Date; id: string }) =>
  b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

const matches = (search: CallSearch) => (row: ToolCallRow) =>
  row.tenant === search.tenant &&
  row.serverId === search.serverId &&
  (search.tool === undefined || row.tool === search.tool) &&
  (search.status === undefined || row.status === search.status) &&
  (search.since === undefined || row.at.getTime() >= search.since.getTime());

interface MutableTally {
  calls: number;
  errors: number;
  tokens: number;
  latency: Array<number>;
}

const tallyInto = (tallies: Map<string | number, MutableTally>, key: string | number, row: ToolCallRow) => {
  let tally = tallies.get(key);
  if (tally === undefined) {
    tally = { calls: 0, errors: 0, tokens: 0, latency: emptyHistogram() };
    tallies.set(key, tally);
  }
  tally.calls += 1;
  if (row.status !== "ok") tally.errors += 1;
  tally.tokens += row.tokensBefore;
  const bucket = latencyBucketOf(row.latencyMs);
  tally.latency[bucket] = (tally.latency[bucket] ?? 0) + 1;
};

/** A fresh, empty call log in memory. */
export const makeMemoryCallLog = (): CallLogStore => {
  let rows: Array<ToolCallRow> = [];
  return {
    appendCalls: (batch) =>
      Effect.sync(() => {
        rows = [...rows, ...batch.map((row) => structuredClone(row))];
      }),
    searchCalls: (search) =>
      Effect.sync(() => {
        const matching = rows.filter(matches(search)).sort(newerFirst);
        const after = search.after;
        const start = after === undefined ? 0 : matching.findIndex((row) => newerFirst(after, row) < 0);
        const items = start < 0 ? [] : matching.slice(start, start + Math.max(0, Math.floor(search.limit)));
        return {
          items: items.map((row) => structuredClone(row)),
          matchCount: Math.min(matching.length, CALL_MATCH_COUNT_CAP),
        };
      }),
    callUsage: (query) =>
      Effect.sync(() => {
        const width = query.bucketSeconds * 1000;
        const buckets = new Map<string | number, MutableTally>();
        const servers = new Map<string | number, MutableTally>();
        for (const row of rows) {
          if (row.tenant !== query.tenant) continue;
          if (query.serverId !== undefined && row.serverId !== query.serverId) continue;
          const minute = Math.floor(row.at.getTime() / 60_000) * 60_000;
          if (minute < query.since.getTime() || minute >= query.until.getTime()) continue;
          tallyInto(buckets, Math.floor(minute / width) * width, row);
          tallyInto(servers, row.serverId, row);
        }
        const startOf = (key: string | number) => new Date(key as number);
        return {
          buckets: [...buckets.entries()]
            .sort(([a], [b]) => (a as number) - (b as number))
            .map(([key, tally]): CallTally & { start: Date } => ({ start: startOf(key), ...tally })),
          servers: [...servers.entries()]
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([key, tally]) => ({ serverId: String(key), ...tally })),
        };
      }),
    toolUsage: (query) =>
      Effect.sync(() => {
        const tools = new Map<string, { -readonly [K in keyof ToolTally]: ToolTally[K] }>();
        for (const row of rows) {
          if (row.tenant !== query.tenant || row.serverId !== query.serverId) continue;
          const hour = Math.floor(row.at.getTime() / 3_600_000) * 3_600_000;
          if (hour < query.since.getTime() || hour >= query.until.getTime()) continue;
          let tally = tools.get(row.tool);
          if (tally === undefined) {
            tally = { tool: row.tool, calls: 0, errors: 0, tokensBefore: 0, tokensAfter: 0 };
            tools.set(row.tool, tally);
          }
          tally.calls += 1;
          if (row.status !== "ok") tally.errors += 1;
          tally.tokensBefore += row.tokensBefore;
          tally.tokensAfter += row.tokensAfter ?? row.tokensBefore;
        }
        return [...tools.values()];
      }),
    pruneCalls: (before, limit) =>
      Effect.sync(() => {
        const old = rows.filter((row) => row.at.getTime() < before.getTime());
        const doomed = new Set(old.sort((a, b) => -newerFirst(a, b)).slice(0, Math.max(0, limit)));
        if (doomed.size > 0) rows = rows.filter((row) => !doomed.has(row));
        return doomed.size;
      }),
  };
};
