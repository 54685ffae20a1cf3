import { LATENCY_BUCKETS } from "@mcpsm/domain/storage";
import { defineEntity, p } from "@mikro-orm/postgresql";

// The tool-call log (docs/api-rules.md §24). No foreign keys: a call outlives its server until retention
// removes it, and the batched writer must never fail on a server deleted meanwhile. Two tables:
// - tool_calls, one row per call: listed per server newest first, pruned by age. Its key is the listing's order
//   (server, time, id): a call's id alone is random, and a unique index of it was the costliest part of
//   storing a call (a random page per insert); the id stays unique in practice (64 random bits).
// - tool_call_usage, one row per (tenant, server, minute) with the minute's counts and latency histogram (a column
//   per bucket of LATENCY_BOUNDS_MS: summing columns is what makes a usage answer over millions of calls
//   fast), upserted by the same statement that appends the calls; tool_call_hourly_usage, the same per
//   hour; and tool_call_tool_usage, one row per (tenant, server, tool, hour) with its calls and tokens before
//   and after shaping (a server's tools' average answer size). Usage reads only these.

/** The latency histogram's columns, `l0` … `l30`. */
export const LATENCY_COLUMNS: ReadonlyArray<string> = Array.from({ length: LATENCY_BUCKETS }, (_, i) => `l${i}`);

export const ToolCallEntity = defineEntity({
  name: "ToolCall",
  tableName: "tool_calls",
  properties: {
    // The key's columns first, in its order (the mapping orders a composite key by its properties).
    serverId: p.text().collation("C").primary(),
    at: p.datetime(3).primary(),
    id: p.text().collation("C").primary(),
    tenant: p.text(),
    tool: p.text(),
    principal: p.text(),
    era: p.text(),
    status: p.text(),
    errorType: p.text(),
    upstreamStatus: p.integer(),
    latencyMs: p.double(),
    resultChars: p.integer(),
    tokensBefore: p.integer(),
    tokensAfter: p.integer().nullable(),
    arguments: p.json<unknown>().nullable(),
  },
  primaryKeys: ["serverId", "at", "id"],
  // Retention prunes the oldest calls of every server.
  indexes: [{ name: "tool_calls_at_index", properties: ["at"] }],
});

const latencyProperties = Object.fromEntries(LATENCY_COLUMNS.map((column) => [column, p.integer().default(0)]));

/** The counts of one (tenant, server, bucket start): a minute in tool_call_usage, an hour in the hourly table. */
const usageProperties = () => ({
  tenant: p.text().primary(),
  serverId: p.text().collation("C").primary(),
  minute: p.datetime(3).primary(),
  calls: p.integer(),
  errors: p.integer(),
  tokens: p.bigint("number"),
  ...latencyProperties,
});

export const ToolCallUsageEntity = defineEntity({
  name: "ToolCallUsage",
  tableName: "tool_call_usage",
  properties: usageProperties(),
  // The key serves both reads: a tenant's minutes, and one of its servers' minutes.
  indexes: [{ name: "tool_call_usage_minute_index", properties: ["minute"] }],
});

/**
 * The same counts per hour (`minute` holds the hour's start): usage cut in hours or days reads 60 times fewer
 * rows (a tenant's week is servers × 168 rows, whatever the number of calls).
 */
export const ToolCallHourlyUsageEntity = defineEntity({
  name: "ToolCallHourlyUsage",
  tableName: "tool_call_hourly_usage",
  properties: usageProperties(),
  indexes: [{ name: "tool_call_hourly_usage_minute_index", properties: ["minute"] }],
});

/**
 * One tool's calls in one hour (`hour` its start): the per-tool figures of a server's usage. Hours only, and
 * no latency histogram: a row per tool and minute would multiply the per-minute table by the tools called.
 */
export const ToolCallToolUsageEntity = defineEntity({
  name: "ToolCallToolUsage",
  tableName: "tool_call_tool_usage",
  properties: {
    tenant: p.text().primary(),
    serverId: p.text().collation("C").primary(),
    tool: p.text().primary(),
    hour: p.datetime(3).primary(),
    calls: p.integer(),
    errors: p.integer(),
    tokensBefore: p.bigint("number"),
    tokensAfter: p.bigint("number"),
  },
  indexes: [{ name: "tool_call_tool_usage_hour_index", properties: ["hour"] }],
});
