// The tool-call log's two goals (docs/api-rules.md §24, issue 31):
//  1. cost: the CPU time the call log adds to one tools/call: the runtime's recording (`recordCall`: clock
//     reads, the upstream status, the entry) and the writer's `record` (a push onto a bounded buffer), against
//     the same loop without them; then the CPU the batched flush into PostgreSQL takes per call (off the
//     request path, but still the service's CPU), and the CPU of the PostgreSQL backends that store it (their
//     /proc figures, 10 ms ticks: BATCH × rounds calls make it readable). Goal: ≤ 0.05 ms per tools/call.
//  2. usage: ROWS (default 10,000,000) calls loaded into tool_calls with generate_series (10 servers of one
//     tenant over 7 days), their per-minute counts built as the writer builds them (tool_call_usage), then the
//     usage queries timed through the adapter (median of 5): one server and the tenant over 24 h by minute (the
//     per-minute rollup), one server and the tenant over 7 days by hour (the hourly rollup), one server's
//     tools over 7 days (the per-tool hours), and a server's first page of calls. Goal: ≤ 300 ms.
//
//   ./run build && node bench/call-log.mjs [cost|usage|both=both]
//
// Environment: PG_ADMIN (default postgres://postgres@127.0.0.1:5432/postgres; a database is created and
// dropped), ROWS, CALLS (default 200,000: calls of the cost loop), BATCH (default 500: calls per stored batch;
// the writer's batch size, or what a second's calls make at a low rate). Timings on a shared machine are upper bounds.
import { Effect } from "effect";
import pino from "pino";
import { LATENCY_BOUNDS_MS } from "@mcpsm/domain/storage";
import { makePostgresStorage } from "@mcpsm/storage-postgres";
import { createServerDatabase } from "@mcpsm/storage-postgres/testing";
import { cpuMs as processCpuMs } from "./lib/service-process.mjs";
import { recordCall } from "../packages/mcp-runtime/dist/calls/call-log.js";
import { startCallLogWriter } from "../apps/api/dist/operations/call-log-writer.js";

const WHAT = process.argv[2] ?? "both";
const PG_ADMIN = process.env.PG_ADMIN ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ROWS = Number(process.env.ROWS ?? 10_000_000);
const CALLS = Number(process.env.CALLS ?? 200_000);
const BATCH = Number(process.env.BATCH ?? 500);

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const database = await createServerDatabase(PG_ADMIN);
const pg = await makePostgresStorage({ url: database.url, poolSize: 4 });
await pg.migrate();
const store = pg.storage.calls;
const run = (effect) => Effect.runPromise(effect);

try {
  if (WHAT === "cost" || WHAT === "both") {
    const server = { id: "srvCost0001", tenant: "cost" };
    const principal = { kind: "server-token", tokenId: "tokBench0001", serverId: server.id };
    const result = { content: [{ type: "text", text: '{"id":1,"name":"Rex","tags":["a","b"]}' }] };
    const outcome = { _tag: "Right", right: { status: 200 } };
    const upstream = async (_exchange, send) => send([]);
    const args = { queryArgs: { q: "x" } };
    const writer = startCallLogWriter({
      store,
      logger: pino({ level: "silent" }),
      flushIntervalMs: 3_600_000,
      batchSize: BATCH,
      maxBuffered: CALLS * 2,
    });
    // What a tools/call does around the log either way (an observed upstream exchange, a result), so the
    // difference is the log's alone.
    const plain = async () => {
      const observe = upstream;
      await observe({ method: "GET", url: "" }, async () => outcome);
      return result;
    };
    const logged = async () => {
      const recording = recordCall(writer, server, principal, "modern", "getPet", args);
      const observe = recording.observe(upstream);
      await observe({ method: "GET", url: "" }, async () => outcome);
      recording.finish(result);
      return result;
    };
    const loop = async (body, n) => {
      const start = cpuMs();
      for (let i = 0; i < n; i++) await body();
      return (cpuMs() - start) / n;
    };
    // Warm both paths, then alternate rounds; the writer's buffer is stored between rounds (timed apart).
    await loop(plain, 20_000);
    await loop(logged, 20_000);
    await writer.flush();
    const added = [];
    const flushes = [];
    const backendsMs = [];
    const dbName = new URL(database.url).pathname.slice(1);
    // Per backend: a pooled connection that closed meanwhile (idle) is left out, a new one counts whole.
    const backends = async () =>
      new Map(
        (
          await pg.orm.em
            .getConnection()
            .execute(`select pid from pg_stat_activity where datname = ? and pid <> pg_backend_pid()`, [dbName])
        ).map((row) => [row.pid, processCpuMs(row.pid)]),
      );
    for (let round = 0; round < 5; round++) {
      const a = await loop(plain, CALLS / 5);
      const b = await loop(logged, CALLS / 5);
      added.push(b - a);
      const backendsBefore = await backends();
      const start = cpuMs();
      await writer.flush();
      flushes.push((cpuMs() - start) / (CALLS / 5));
      const backendsAfter = await backends();
      const spent = [...backendsAfter].reduce((sum, [pid, ms]) => sum + ms - (backendsBefore.get(pid) ?? 0), 0);
      backendsMs.push(spent / (CALLS / 5));
    }
    await writer.stop();
    console.log(
      `cost: request path +${(median(added) * 1000).toFixed(2)} µs CPU per tools/call (rounds: ${added
        .map((x) => (x * 1000).toFixed(2))
        .join(", ")} µs; goal ≤ 50 µs)`,
    );
    console.log(
      `cost: batched flush into PostgreSQL ${(median(flushes) * 1000).toFixed(2)} µs CPU per call (batches of ${BATCH}, off the request path)`,
    );
    console.log(
      `cost: PostgreSQL backends ${(median(backendsMs) * 1000).toFixed(2)} µs CPU per call (rounds: ${backendsMs
        .map((x) => (x * 1000).toFixed(1))
        .join(", ")} µs)`,
    );
    console.log(`cost: dropped ${writer.dropped()}`);
  }

  if (WHAT === "usage" || WHAT === "both") {
    const pgQuery = (text, params = []) => pg.orm.em.getConnection().execute(text, params);
    const span = 7 * 86_400_000;
    const now = Date.now();
    const latencyCounts = LATENCY_BOUNDS_MS.map((bound, i) =>
      i === 0
        ? `count(*) filter (where latency_ms <= ${bound})`
        : `count(*) filter (where latency_ms > ${LATENCY_BOUNDS_MS[i - 1]} and latency_ms <= ${bound})`,
    );
    latencyCounts.push(`count(*) filter (where latency_ms > ${LATENCY_BOUNDS_MS.at(-1)})`);
    let start = performance.now();
    await pgQuery(`set synchronous_commit to off`);
    await pgQuery(
      `insert into tool_calls
       select 'c' || g, 'bench', 'srvBench' || lpad((g % 10)::text, 4, '0'),
         to_timestamp((${now} - ${span} + (g::float8 * ${span} / ${ROWS}))::float8 / 1000), 'tool' || (g % 50),
         'token:tokBench0001', case when g % 3 = 0 then 'legacy' else 'modern' end,
         case when g % 50 = 0 then 'error' when g % 20 = 0 then 'tool_error' else 'ok' end,
         case when g % 50 = 0 then '-32603' when g % 20 = 0 then 'tool_error' else '' end,
         case when g % 20 = 0 then 503 else 200 end, (g % 997) * 0.37, (g % 2000), ceil((g % 2000) / 4.0)::int,
         null, null
       from generate_series(1, ${ROWS}) g`,
    );
    const loadMs = performance.now() - start;
    start = performance.now();
    await pgQuery(
      `insert into tool_call_usage
       select tenant, server_id, date_bin('60 seconds'::interval, at, timestamptz '1970-01-01 00:00:00+00') m,
         count(*), count(*) filter (where status <> 'ok'), sum(tokens_before), ${latencyCounts.join(", ")}
       from tool_calls where tenant = 'bench' group by 1, 2, 3`,
    );
    await pgQuery(
      `insert into tool_call_hourly_usage
       select tenant, server_id, date_bin('3600 seconds'::interval, minute, timestamptz '1970-01-01 00:00:00+00'),
         sum(calls), sum(errors), sum(tokens), ${LATENCY_BOUNDS_MS.map((_, i) => `sum(l${i})`).join(", ")},
         sum(l${LATENCY_BOUNDS_MS.length})
       from tool_call_usage where tenant = 'bench' group by 1, 2, 3`,
    );
    await pgQuery(
      `insert into tool_call_tool_usage
       select tenant, server_id, tool, date_bin('3600 seconds'::interval, at, timestamptz '1970-01-01 00:00:00+00'),
         count(*), count(*) filter (where status <> 'ok'), sum(tokens_before), sum(coalesce(tokens_after, tokens_before))
       from tool_calls where tenant = 'bench' group by 1, 2, 3, 4`,
    );
    for (const table of ["tool_calls", "tool_call_usage", "tool_call_hourly_usage", "tool_call_tool_usage"])
      await pgQuery(`vacuum analyze ${table}`);
    const rollupMs = performance.now() - start;
    const [{ n }] = await pgQuery("select count(*)::int as n from tool_call_usage");
    console.log(
      `usage: loaded ${ROWS.toLocaleString("en")} calls in ${(loadMs / 1000).toFixed(1)} s, their ${n.toLocaleString("en")} per-minute rows (and hourly ones) in ${(rollupMs / 1000).toFixed(1)} s`,
    );
    const timed = async (label, effect) => {
      const times = [];
      let answer;
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        answer = await run(effect);
        times.push(performance.now() - t);
      }
      console.log(
        `usage: ${label.padEnd(44)} median ${median(times).toFixed(1)} ms (max ${Math.max(...times).toFixed(1)} ms; goal ≤ 300 ms)`,
      );
      return answer;
    };
    const minute = 60_000;
    const until = new Date(Math.ceil(now / minute) * minute + minute);
    const hourly = (ms) => new Date(Math.floor(ms / 3_600_000) * 3_600_000);
    const day = await timed(
      "one server, 24 h by minute",
      store.callUsage({
        tenant: "bench",
        serverId: "srvBench0001",
        since: new Date(until.getTime() - 86_400_000),
        until,
        bucketSeconds: 60,
      }),
    );
    const tenantDay = await timed(
      "the tenant (10 servers), 24 h by minute",
      store.callUsage({ tenant: "bench", since: new Date(until.getTime() - 86_400_000), until, bucketSeconds: 60 }),
    );
    const week = await timed(
      "one server, 7 days by hour",
      store.callUsage({
        tenant: "bench",
        serverId: "srvBench0001",
        since: hourly(now - span),
        until: hourly(now + 7_200_000),
        bucketSeconds: 3600,
      }),
    );
    const tenant = await timed(
      "the tenant (10 servers), 7 days by hour",
      store.callUsage({
        tenant: "bench",
        since: hourly(now - span),
        until: hourly(now + 7_200_000),
        bucketSeconds: 3600,
      }),
    );
    const tools = await timed(
      "one server's tools, 7 days (per-tool hours)",
      store.toolUsage({
        tenant: "bench",
        serverId: "srvBench0001",
        since: hourly(now - span),
        until: hourly(now + 7_200_000),
      }),
    );
    await timed(
      "one server's first page of calls (50)",
      store.searchCalls({ tenant: "bench", serverId: "srvBench0001", limit: 51 }),
    );
    const sum = (tallies) => tallies.reduce((s, t) => s + t.calls, 0);
    console.log(
      `usage: counted ${sum(day.buckets)} calls in ${day.buckets.length} buckets; tenant ${sum(tenantDay.buckets)} in ${tenantDay.buckets.length}; ${sum(week.buckets)} in ${week.buckets.length}; tenant ${sum(tenant.buckets)} in ${tenant.buckets.length} over ${tenant.servers.length} servers; ${sum(tools)} over ${tools.length} tools`,
    );
  }
} finally {
  await pg.close();
  await database.dispose();
}
