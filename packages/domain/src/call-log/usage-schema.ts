import { Schema } from "effect";
import { optional } from "../validation/optional-field.js";
import { optionalFilterFromQuery } from "../listing/query-parameters.js";
import { DateTimeString, Timestamp } from "../validation/text.js";

// The usage aggregates of docs/api-rules.md §24: calls, error rate, p50/p95 latency and result tokens per
// time bucket, of one server or of a whole tenant.

/** The widths a usage series may be cut in. */
export const USAGE_BUCKETS = { minute: 60, hour: 3_600, day: 86_400 } as const;
export type UsageBucket = keyof typeof USAGE_BUCKETS;
const BUCKET_NAMES = Object.keys(USAGE_BUCKETS) as ReadonlyArray<UsageBucket>;

/** At most this many buckets in one answer. */
export const MAX_USAGE_BUCKETS = 1_500;

const isDateTime = Schema.is(DateTimeString);
const dateTime = (description: string) =>
  optional(
    optionalFilterFromQuery(isDateTime, "must be an RFC 3339 date-time such as 2030-01-01T00:00:00Z").annotations({
      jsonSchema: { type: "string", format: "date-time", description },
    }),
  );

/** The query parameters of the usage routes. */
export const UsageParameters = Schema.Struct({
  since: dateTime("start of the window (RFC 3339); default: 24 hours before `until`"),
  until: dateTime("end of the window, exclusive (RFC 3339); default: now"),
  bucket: optional(
    optionalFilterFromQuery(
      (value) => (BUCKET_NAMES as ReadonlyArray<string>).includes(value),
      `must be one of ${BUCKET_NAMES.join(", ")}`,
    ).annotations({
      jsonSchema: { type: "string", enum: [...BUCKET_NAMES], default: "hour", description: "width of a bucket" },
    }),
  ),
});
/** A typed usage query. */
export type UsageQuery = typeof UsageParameters.Type;

/** Calls, errors, latency and tokens of a set of calls. */
export const UsageFigures = Schema.Struct({
  calls: Schema.Int,
  errors: Schema.Int.annotations({ description: "calls that ended in a tool error or a JSON-RPC error" }),
  errorRate: Schema.Number.annotations({ description: "errors / calls; 0 without calls" }),
  p50LatencyMs: Schema.Number,
  p95LatencyMs: Schema.Number,
  tokens: Schema.Int.annotations({ description: "result tokens before shaping, summed" }),
});
export type UsageFigures = typeof UsageFigures.Type;

/** One time bucket of a usage series. */
export const UsagePoint = Schema.extend(UsageFigures, Schema.Struct({ at: Timestamp })).annotations({
  identifier: "UsagePoint",
});
export type UsagePoint = typeof UsagePoint.Type;

/** One server's figures in a tenant's usage. */
export const ServerUsage = Schema.extend(UsageFigures, Schema.Struct({ serverId: Schema.String })).annotations({
  identifier: "ServerUsage",
});

/** One tool's calls in a server's usage, and the size of what it answered on average. */
export const ToolUsage = Schema.Struct({
  tool: Schema.String.annotations({ description: "the name the caller used (the server's alias, if any)" }),
  calls: Schema.Int,
  errors: Schema.Int,
  errorRate: Schema.Number.annotations({ description: "errors / calls" }),
  averageTokensBefore: Schema.Int.annotations({
    description: "result tokens per call before response shaping, on average (rounded)",
  }),
  averageTokensAfter: Schema.Int.annotations({
    description: "result tokens per call as the caller received them (after shaping, where it ran), on average",
  }),
}).annotations({ identifier: "ToolUsage" });
export type ToolUsage = typeof ToolUsage.Type;

/** A usage answer: the window, its totals and the series of buckets that had calls (oldest first). */
export const UsageReport = Schema.Struct({
  since: Timestamp,
  until: Timestamp,
  bucket: Schema.Literal(...BUCKET_NAMES),
  totals: UsageFigures,
  series: Schema.Array(UsagePoint),
  servers: Schema.Array(ServerUsage).annotations({ description: "per server, most calls first" }),
  tools: Schema.Array(ToolUsage).annotations({
    description:
      "a server's usage only ([] for the tenant's): per tool, most calls first, counted over the whole hours the window touches",
  }),
}).annotations({ identifier: "UsageReport" });
export type UsageReport = typeof UsageReport.Type;
