import type { components } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import { Button } from "react-aria-components";
import { api, run } from "../api/client.js";
import type { Problem } from "../api/problem.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { ToolUsageTable } from "./ToolUsageTable.js";
import { UsageChart } from "./UsageChart.js";
import { count, ms, percent } from "./usage-format.js";
import "./usage.css";

type UsageReport = components["schemas"]["UsageReport"];
type Figures = UsageReport["totals"];

// docs/api-rules.md §24: usage of one server (GET /servers/{id}/usage) or of the tenant (GET /usage) over a
// window: calls and errors, p95 latency and result tokens per bucket, and (for the tenant) per server.

/** The windows offered: a span back from now, cut in buckets the service accepts (at most 1,500). */
const WINDOWS = {
  "1h": { label: "Last hour, by minute", spanMs: 3_600_000, bucket: "minute" },
  "24h": { label: "Last 24 hours, by hour", spanMs: 86_400_000, bucket: "hour" },
  "24h-minute": { label: "Last 24 hours, by minute", spanMs: 86_400_000, bucket: "minute" },
  "7d": { label: "Last 7 days, by hour", spanMs: 7 * 86_400_000, bucket: "hour" },
  "30d": { label: "Last 30 days, by day", spanMs: 30 * 86_400_000, bucket: "day" },
} as const;
type WindowKey = keyof typeof WINDOWS;

const WIDTH_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
type Point = UsageReport["series"][number];

/** Every bucket of the window, those without calls as zeros (the service answers the buckets with calls only). */
const everyBucket = (report: UsageReport): ReadonlyArray<Point> => {
  const width = WIDTH_MS[report.bucket];
  const byStart = new Map(report.series.map((p) => [Date.parse(p.at), p]));
  const points: Array<Point> = [];
  for (let at = Date.parse(report.since); at < Date.parse(report.until); at += width)
    points.push(
      byStart.get(at) ?? {
        at: new Date(at).toISOString(),
        calls: 0,
        errors: 0,
        errorRate: 0,
        p50LatencyMs: 0,
        p95LatencyMs: 0,
        tokens: 0,
      },
    );
  return points;
};

/** The totals of a window as a row of figures. */
const Totals = (props: { readonly figures: Figures }) => {
  const f = props.figures;
  const items: ReadonlyArray<readonly [string, string]> = [
    ["Calls", count(f.calls)],
    ["Errors", `${count(f.errors)} (${percent(f.errorRate)})`],
    ["p50 latency", ms(f.p50LatencyMs)],
    ["p95 latency", ms(f.p95LatencyMs)],
    ["Result tokens", count(f.tokens)],
  ];
  return (
    <dl className="usage-totals" data-testid="usage-totals">
      {items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
};

/** Usage of `serverId`, or of the whole tenant (with a row per server) when it is absent. */
export const UsageView = (props: { readonly serverId?: string; readonly refresh?: number }) => {
  const { serverId } = props;
  const [span, setSpan] = useState<WindowKey>("24h");
  const [report, setReport] = useState<UsageReport>();
  const [problem, setProblem] = useState<Problem>();
  // The tenant's rows name their servers (a deleted server keeps its id only).
  const [names, setNames] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    if (serverId !== undefined) return;
    void run(api.GET("/servers")).then((out) => {
      if (out.ok) setNames(new Map(out.data.servers.map((s) => [s.id, s.name])));
    });
  }, [serverId]);

  const load = useCallback(async () => {
    const choice = WINDOWS[span];
    const query = { since: new Date(Date.now() - choice.spanMs).toISOString(), bucket: choice.bucket };
    const out = await run(
      serverId === undefined
        ? api.GET("/usage", { params: { query } })
        : api.GET("/servers/{id}/usage", { params: { path: { id: serverId }, query } }),
    );
    if (!out.ok) return setProblem(out.problem);
    setProblem(undefined);
    setReport(out.data);
  }, [serverId, span]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `refresh` is a reload signal
  useEffect(() => {
    void load();
  }, [load, props.refresh]);

  const daily = report?.bucket === "day";
  const series = report === undefined ? [] : everyBucket(report);
  return (
    <section aria-labelledby="usage-title" className="usage">
      <div className="heading">
        {serverId === undefined ? <h1 id="usage-title">Usage</h1> : <h2 id="usage-title">Usage</h2>}
        <div className="actions">
          <label className="usage-window">
            <span className="muted">Window</span>{" "}
            <select value={span} onChange={(e) => setSpan(e.target.value as WindowKey)}>
              {Object.entries(WINDOWS).map(([key, w]) => (
                <option key={key} value={key}>
                  {w.label}
                </option>
              ))}
            </select>
          </label>
          <Button className="button small" onPress={() => void load()}>
            Refresh
          </Button>
        </div>
      </div>
      <ProblemBanner problem={problem} />
      {report !== undefined && (
        <>
          <Totals figures={report.totals} />
          <UsageChart
            title="Calls (errors in red)"
            bars={series.map((p) => ({ at: p.at, value: p.calls, part: p.errors }))}
            format={count}
            partLabel="errors"
            daily={daily}
          />
          <UsageChart
            title="p95 latency"
            bars={series.map((p) => ({ at: p.at, value: p.p95LatencyMs }))}
            format={ms}
            daily={daily}
          />
          <UsageChart
            title="Result tokens"
            bars={series.map((p) => ({ at: p.at, value: p.tokens }))}
            format={count}
            daily={daily}
          />
          {serverId === undefined && (
            <table className="table usage-table" data-testid="usage-servers">
              <thead>
                <tr>
                  <th scope="col">Server</th>
                  <th scope="col">Calls</th>
                  <th scope="col">Error rate</th>
                  <th scope="col">p50</th>
                  <th scope="col">p95</th>
                  <th scope="col">Tokens</th>
                </tr>
              </thead>
              <tbody>
                {report.servers.map((s) => (
                  <tr key={s.serverId}>
                    <td>
                      <a href={`#/servers/${s.serverId}`}>{names.get(s.serverId) ?? s.serverId}</a>{" "}
                      <code className="muted">{s.serverId}</code>
                    </td>
                    <td data-label="Calls">{count(s.calls)}</td>
                    <td data-label="Error rate">{percent(s.errorRate)}</td>
                    <td data-label="p50">{ms(s.p50LatencyMs)}</td>
                    <td data-label="p95">{ms(s.p95LatencyMs)}</td>
                    <td data-label="Tokens">{count(s.tokens)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {serverId !== undefined && report.tools.length > 0 && <ToolUsageTable tools={report.tools} />}
          {report.totals.calls === 0 && <p className="muted">No calls in this window.</p>}
        </>
      )}
    </section>
  );
};
