import {
  CALL_MATCH_COUNT_CAP,
  type CallLogStore,
  type CallSearch,
  type CallTally,
  latencyBucketOf,
  type ToolCallRow,
} from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { LATENCY_COLUMNS } from "../schema/tool-call-entities.js";

// The tool-call log in PostgreSQL (schema/tool-call-entities.ts). Its statements run outside any transaction,
// each on a pooled connection of its own, and never notify the point-read caches: calls are no records.

/**
 * Runs one statement outside a transaction (the storage's pool runner, with outages as Unavailable); a `name`
 * prepares it on each pooled connection.
 */
export type PoolStatement = (
  sql: string,
  params: ReadonlyArray<unknown>,
  name?: string,
) => Effect.Effect<ReadonlyArray<Record<string, unknown>>, import("@mcpsm/domain/errors").Unavailable>;

const EPOCH = "timestamptz '1970-01-01 00:00:00+00'";
const USAGE_COLUMNS = ["tenant", "server_id", "minute", "calls", "errors", "tokens", ...LATENCY_COLUMNS].join(", ");
const latencyUpdates = (table: string) => LATENCY_COLUMNS.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(", ");
const latencySums = LATENCY_COLUMNS.map((c) => `sum(u.${c})::int as ${c}`).join(", ");

/** The columns of tool_calls as the append sends them, each an array parameter of its type. */
const CALL_COLUMNS = [
  ["id", "text"],
  ["tenant", "text"],
  ["server_id", "text"],
  ["at", "timestamptz"],
  ["tool", "text"],
  ["principal", "text"],
  ["era", "text"],
  ["status", "text"],
  ["error_type", "text"],
  ["upstream_status", "int"],
  ["latency_ms", "float8"],
  ["result_chars", "int"],
  ["tokens_before", "int"],
  ["tokens_after", "int"],
  ["arguments", "jsonb"],
] as const;
const callNames = CALL_COLUMNS.map(([name]) => name).join(", ");
const unnested = [...CALL_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`), `$${CALL_COLUMNS.length + 1}::int[]`];

const upsertCounts = (table: string, select: string) => `insert into ${table} (${USAGE_COLUMNS})
    ${select}
  on conflict (tenant, server_id, minute) do update set calls = ${table}.calls + excluded.calls,
    errors = ${table}.errors + excluded.errors, tokens = ${table}.tokens + excluded.tokens, ${latencyUpdates(table)}`;

// One prepared statement per batch (docs/performance.md, "Call log cost, stop 27"): the calls arrive as one
// array per column (parsed far faster than a JSON document of rows) with each call's latency bucket, and
// their minutes', hours' and tools' counts are summed from them in the same statement (data-modifying CTEs
// are atomic). Counts are upserted in key order, so two instances flushing at once lock them in the same order.
const APPEND = `with c as (
    select * from unnest(${unnested.join(", ")}) as c(${callNames}, bucket)),
  appended as (insert into tool_calls (${callNames}) select ${callNames} from c),
  minutes as (
    select tenant, server_id, date_bin('60 seconds'::interval, at, ${EPOCH}) as minute, count(*)::int as calls,
      (count(*) filter (where status <> 'ok'))::int as errors, sum(tokens_before)::bigint as tokens,
      ${LATENCY_COLUMNS.map((column, i) => `(count(*) filter (where bucket = ${i}))::int as ${column}`).join(", ")}
    from c group by 1, 2, 3),
  hours as (${upsertCounts(
    "tool_call_hourly_usage",
    `select tenant, server_id, date_bin('3600 seconds'::interval, minute, ${EPOCH}), sum(calls), sum(errors),
      sum(tokens), ${LATENCY_COLUMNS.map((column) => `sum(${column})`).join(", ")}
    from minutes group by 1, 2, 3 order by 1, 2, 3`,
  )}),
  tools as (insert into tool_call_tool_usage
      (tenant, server_id, tool, hour, calls, errors, tokens_before, tokens_after)
    select tenant, server_id, tool, date_bin('3600 seconds'::interval, at, ${EPOCH}), count(*)::int,
      (count(*) filter (where status <> 'ok'))::int, sum(tokens_before)::bigint,
      sum(coalesce(tokens_after, tokens_before))::bigint
    from c group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (tenant, server_id, tool, hour) do update set calls = tool_call_tool_usage.calls + excluded.calls,
      errors = tool_call_tool_usage.errors + excluded.errors,
      tokens_before = tool_call_tool_usage.tokens_before + excluded.tokens_before,
      tokens_after = tool_call_tool_usage.tokens_after + excluded.tokens_after)
  ${upsertCounts("tool_call_usage", `select ${USAGE_COLUMNS} from minutes order by 1, 2, 3`)}`;

/** A batch as the append's parameters: one array per column of CALL_COLUMNS, then the latency buckets. */
const appendParams = (rows: ReadonlyArray<ToolCallRow>): ReadonlyArray<ReadonlyArray<unknown>> => [
  rows.map((row) => row.id),
  rows.map((row) => row.tenant),
  rows.map((row) => row.serverId),
  rows.map((row) => row.at.toISOString()),
  rows.map((row) => row.tool),
  rows.map((row) => row.principal),
  rows.map((row) => row.era),
  rows.map((row) => row.status),
  rows.map((row) => row.errorType),
  rows.map((row) => row.upstreamStatus),
  rows.map((row) => row.latencyMs),
  rows.map((row) => row.resultChars),
  rows.map((row) => row.tokensBefore),
  rows.map((row) => row.tokensAfter),
  rows.map((row) => (row.arguments === null ? null : JSON.stringify(row.arguments))),
  rows.map((row) => latencyBucketOf(row.latencyMs)),
];

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
    rows.length === 0 ? Effect.void : Effect.asVoid(run(APPEND, appendParams(rows), "mcpsm_append_calls")),
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
  // Oldest first, so a batch always makes progress; SKIP LOCKED lets two instances prune side by side (the
  // rows found by their place, ctid: the table has no index of the id alone). The minutes wholly before the
  // cutoff go with them.
  pruneCalls: (before, limit) =>
    Effect.map(
      run(
        `with doomed as (
           delete from tool_calls where ctid = any(array(
             select ctid from tool_calls where at < $1::timestamptz order by at limit $2 for update skip locked))
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
