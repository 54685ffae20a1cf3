import {
  CALL_MATCH_COUNT_CAP,
  type CallLogStore,
  type CallSearch,
  type CallTally,
  emptyHistogram,
  latencyBucketOf,
  type ToolCallRow,
} from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { LATENCY_COLUMNS } from "../schema/tool-call-entities.js";

// The tool-call log in PostgreSQL (schema/tool-call-entities.ts). Its statements run outside any transaction,
// each on a pooled connection of its own, and never notify the point-read caches: calls are no records.

/** Runs one statement outside a transaction (the storage's pool runner, with outages as Unavailable). */
export type PoolStatement = (
  sql: string,
  params: ReadonlyArray<unknown>,
) => Effect.Effect<ReadonlyArray<Record<string, unknown>>, import("@mcpsm/domain/errors").Unavailable>;

const EPOCH = "timestamptz '1970-01-01 00:00:00+00'";
const latencyUpdates = (table: string) => LATENCY_COLUMNS.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(", ");
const latencySums = LATENCY_COLUMNS.map((c) => `sum(u.${c})::int as ${c}`).join(", ");

const upsertUsage = (table: string, param: string) => `insert into ${table}
    select * from json_populate_recordset(null::${table}, ${param}::json) order by tenant, server_id, minute
  on conflict (tenant, server_id, minute) do update set calls = ${table}.calls + excluded.calls,
    errors = ${table}.errors + excluded.errors, tokens = ${table}.tokens + excluded.tokens, ${latencyUpdates(table)}`;

const upsertToolUsage = (param: string) => `insert into tool_call_tool_usage
    select * from json_populate_recordset(null::tool_call_tool_usage, ${param}::json) order by tenant, server_id, tool, hour
  on conflict (tenant, server_id, tool, hour) do update set calls = tool_call_tool_usage.calls + excluded.calls,
    errors = tool_call_tool_usage.errors + excluded.errors,
    tokens_before = tool_call_tool_usage.tokens_before + excluded.tokens_before,
    tokens_after = tool_call_tool_usage.tokens_after + excluded.tokens_after`;

// One statement: the calls and their minutes', hours' and tools' counts go in together (data-modifying CTEs
// are atomic). Counts are upserted in key order, so two instances flushing at once lock them in the same order.
const APPEND = `with appended as (
    insert into tool_calls select * from json_populate_recordset(null::tool_calls, $1::json)),
  hours as (${upsertUsage("tool_call_hourly_usage", "$3")}),
  tools as (${upsertToolUsage("$4")})
  ${upsertUsage("tool_call_usage", "$2")}`;

/** The stored form of a call (column names). */
const callColumns = (row: ToolCallRow) => ({
  id: row.id,
  tenant: row.tenant,
  server_id: row.serverId,
  at: row.at.toISOString(),
  tool: row.tool,
  principal: row.principal,
  era: row.era,
  status: row.status,
  error_type: row.errorType,
  upstream_status: row.upstreamStatus,
  latency_ms: row.latencyMs,
  result_chars: row.resultChars,
  tokens_before: row.tokensBefore,
  tokens_after: row.tokensAfter,
  arguments: row.arguments,
});

/** The counts of a batch per (tenant, server, bucket of `widthMs`), the bucket's start in `minute`. */
const countsOf = (rows: ReadonlyArray<ToolCallRow>, widthMs: number) => {
  const minutes = new Map<string, Record<string, unknown> & { latency: Array<number> }>();
  for (const row of rows) {
    const minute = new Date(Math.floor(row.at.getTime() / widthMs) * widthMs).toISOString();
    const key = `${row.tenant} ${row.serverId} ${minute}`;
    let entry = minutes.get(key);
    if (entry === undefined) {
      entry = {
        tenant: row.tenant,
        server_id: row.serverId,
        minute,
        calls: 0,
        errors: 0,
        tokens: 0,
        latency: emptyHistogram(),
      };
      minutes.set(key, entry);
    }
    entry.calls = (entry.calls as number) + 1;
    if (row.status !== "ok") entry.errors = (entry.errors as number) + 1;
    entry.tokens = (entry.tokens as number) + row.tokensBefore;
    const bucket = latencyBucketOf(row.latencyMs);
    entry.latency[bucket] = (entry.latency[bucket] ?? 0) + 1;
  }
  return [...minutes.values()].map(({ latency, ...entry }) => ({
    ...entry,
    ...Object.fromEntries(LATENCY_COLUMNS.map((column, i) => [column, latency[i] ?? 0])),
  }));
};

/** The counts of a batch per (tenant, server, tool, hour). */
const toolCountsOf = (rows: ReadonlyArray<ToolCallRow>) => {
  const tools = new Map<
    string,
    Record<string, unknown> & { calls: number; errors: number; tokens_before: number; tokens_after: number }
  >();
  for (const row of rows) {
    const hour = new Date(Math.floor(row.at.getTime() / 3_600_000) * 3_600_000).toISOString();
    const key = `${row.tenant} ${row.serverId} ${hour} ${row.tool}`;
    let entry = tools.get(key);
    if (entry === undefined) {
      entry = {
        tenant: row.tenant,
        server_id: row.serverId,
        tool: row.tool,
        hour,
        calls: 0,
        errors: 0,
        tokens_before: 0,
        tokens_after: 0,
      };
      tools.set(key, entry);
    }
    entry.calls += 1;
    if (row.status !== "ok") entry.errors += 1;
    entry.tokens_before += row.tokensBefore;
    entry.tokens_after += row.tokensAfter ?? row.tokensBefore;
  }
  return [...tools.values()];
};

/** A call read back as `row_to_json` wrote it. */
const decodeCall = (json: Record<string, unknown>): ToolCallRow => ({
  id: String(json.id),
  tenant: String(json.tenant),
  serverId: String(json.server_id),
  at: new Date(String(json.at)),
  tool: String(json.tool),
  principal: String(json.principal),
  era: json.era === "legacy" ? "legacy" : "modern",
  status: json.status === "ok" || json.status === "tool_error" ? json.status : "error",
  errorType: String(json.error_type),
  upstreamStatus: Number(json.upstream_status),
  latencyMs: Number(json.latency_ms),
  resultChars: Number(json.result_chars),
  tokensBefore: Number(json.tokens_before),
  tokensAfter: json.tokens_after === null ? null : Number(json.tokens_after),
  arguments: json.arguments ?? null,
});

const tallyOf = (row: Record<string, unknown>): CallTally => ({
  calls: Number(row.calls),
  errors: Number(row.errors),
  tokens: Number(row.tokens),
  latency: LATENCY_COLUMNS.map((column) => Number(row[column])),
});

/** The call log over `run`. */
export const postgresCallLog = (run: PoolStatement): CallLogStore => ({
  appendCalls: (rows) =>
    rows.length === 0
      ? Effect.void
      : Effect.asVoid(
          run(APPEND, [
            JSON.stringify(rows.map(callColumns)),
            JSON.stringify(countsOf(rows, 60_000)),
            JSON.stringify(countsOf(rows, 3_600_000)),
            JSON.stringify(toolCountsOf(rows)),
          ]),
        ),
  searchCalls: (search: CallSearch) => {
    const params: Array<unknown> = [];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const filters = [`c.server_id = ${param(search.serverId)}`, `c.tenant = ${param(search.tenant)}`];
    if (search.tool !== undefined) filters.push(`c.tool = ${param(search.tool)}`);
    if (search.status !== undefined) filters.push(`c.status = ${param(search.status)}`);
    if (search.since !== undefined) filters.push(`c.at >= ${param(search.since.toISOString())}::timestamptz`);
    const where = filters.join(" and ");
    const after =
      search.after === undefined
        ? ""
        : `and (c.at, c.id) < (${param(search.after.at.toISOString())}::timestamptz, ${param(search.after.id)})`;
    const limit = param(Math.max(0, Math.floor(search.limit)));
    return Effect.map(
      run(
        `select (select count(*) from (select 1 from tool_calls c where ${where} limit ${CALL_MATCH_COUNT_CAP}) k)::int as n,
           coalesce((select json_agg(row_to_json(p) order by p.at desc, p.id desc)
             from (select c.* from tool_calls c where ${where} ${after}
                   order by c.at desc, c.id desc limit ${limit}) p), '[]'::json) as r`,
        params,
      ),
      (result) => {
        const row = result[0] ?? { n: 0, r: [] };
        return {
          items: (row.r as Array<Record<string, unknown>>).map(decodeCall),
          matchCount: Number(row.n),
        };
      },
    );
  },
  callUsage: (query) => {
    const bucket = `date_bin('${Math.floor(query.bucketSeconds)} seconds'::interval, u.minute, ${EPOCH})`;
    // Whole hours (the domain cuts windows in whole buckets) are read from the hourly counts.
    const table =
      query.bucketSeconds % 3600 === 0 &&
      query.since.getTime() % 3_600_000 === 0 &&
      query.until.getTime() % 3_600_000 === 0
        ? "tool_call_hourly_usage"
        : "tool_call_usage";
    const params: Array<unknown> = [query.tenant, query.since.toISOString(), query.until.toISOString()];
    const server = query.serverId === undefined ? "" : `and u.server_id = $${params.push(query.serverId)}`;
    return Effect.map(
      run(
        `select ${bucket} as b, u.server_id as s, grouping(u.server_id) as by_bucket,
           sum(u.calls)::int as calls, sum(u.errors)::int as errors, sum(u.tokens)::float8 as tokens, ${latencySums}
         from ${table} u
         where u.tenant = $1 and u.minute >= $2::timestamptz and u.minute < $3::timestamptz ${server}
         group by grouping sets ((${bucket}), (u.server_id))`,
        params,
      ),
      (rows) => ({
        buckets: rows
          .filter((row) => Number(row.by_bucket) === 1)
          .map((row) => ({ start: new Date(row.b as string | Date), ...tallyOf(row) }))
          .sort((a, b) => a.start.getTime() - b.start.getTime()),
        servers: rows
          .filter((row) => Number(row.by_bucket) === 0)
          .map((row) => ({ serverId: String(row.s), ...tallyOf(row) }))
          .sort((a, b) => (a.serverId < b.serverId ? -1 : 1)),
      }),
    );
  },
  toolUsage: (query) =>
    Effect.map(
      run(
        `select u.tool, sum(u.calls)::int as calls, sum(u.errors)::int as errors,
           sum(u.tokens_before)::float8 as tokens_before, sum(u.tokens_after)::float8 as tokens_after
         from tool_call_tool_usage u
         where u.tenant = $1 and u.server_id = $2 and u.hour >= $3::timestamptz and u.hour < $4::timestamptz
         group by u.tool`,
        [query.tenant, query.serverId, query.since.toISOString(), query.until.toISOString()],
      ),
      (rows) =>
        rows.map((row) => ({
          tool: String(row.tool),
          calls: Number(row.calls),
          errors: Number(row.errors),
          tokensBefore: Number(row.tokens_before),
          tokensAfter: Number(row.tokens_after),
        })),
    ),
  // Oldest first, so a batch always makes progress; SKIP LOCKED lets two instances prune side by side. The
  // minutes wholly before the cutoff go with them.
  pruneCalls: (before, limit) =>
    Effect.map(
      run(
        `with doomed as (
           delete from tool_calls where id in (
             select id from tool_calls where at < $1::timestamptz order by at limit $2 for update skip locked)
           returning 1),
         minutes as (delete from tool_call_usage where minute < date_bin('60 seconds'::interval, $1::timestamptz, ${EPOCH})),
         hours as (delete from tool_call_hourly_usage where minute < date_bin('3600 seconds'::interval, $1::timestamptz, ${EPOCH})),
         tools as (delete from tool_call_tool_usage where hour < date_bin('3600 seconds'::interval, $1::timestamptz, ${EPOCH}))
         select count(*)::int as n from doomed`,
        [before.toISOString(), Math.max(0, Math.floor(limit))],
      ),
      (rows) => Number(rows[0]?.n ?? 0),
    ),
});
