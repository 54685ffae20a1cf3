import type { components } from "@mcpsm/client";
import type { ReactNode } from "react";
import { groupByReason } from "./report-groups.js";

type Report = components["schemas"]["ImportReport"];

/** Every item of a list, grouped by reason, each group open with its count (§15a: shown before applying). */
const ReasonGroups = <T,>(props: {
  readonly label: string;
  readonly items: ReadonlyArray<T>;
  readonly reasonOf: (item: T) => string;
  readonly render: (item: T) => ReactNode;
}) => {
  if (props.items.length === 0) return null;
  const groups = groupByReason(props.items, props.reasonOf);
  return (
    <section aria-label={props.label}>
      <h3>
        {props.label}: {props.items.length}, {groups.length} {groups.length === 1 ? "reason" : "reasons"}
      </h3>
      {groups.map((group) => (
        <details key={group.reason} open={groups.length <= 5}>
          <summary>
            <span className="badge">{group.items.length}</span> {group.reason}
          </summary>
          <ul className="report-list">
            {group.items.map((item, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: items of a report are shown once, in order
              <li key={i}>{props.render(item)}</li>
            ))}
          </ul>
        </details>
      ))}
    </section>
  );
};

/** An import or re-sync report (docs/api-rules.md §15): what is added, changed, removed, kept and skipped. */
export const ImportReportView = (props: { readonly report: Report; readonly title: string }) => {
  const { report } = props;
  const op = (t: { method: string; path: string }) => (
    <code>
      {t.method} {t.path}
    </code>
  );
  return (
    <section className="report" aria-label={props.title}>
      <h2>{props.title}</h2>
      <p>
        <span className="badge add">{report.added.length} added</span>{" "}
        <span className="badge change">{report.changed.length} changed</span>{" "}
        <span className="badge remove">{report.removed.length} removed</span>{" "}
        <span className="badge">{report.kept.length} kept</span>{" "}
        <span className="badge">{report.unchanged} unchanged</span>{" "}
        <span className="badge">{report.skipped.length} skipped</span>
      </p>
      <ul className="report-list">
        {report.added.map((t) => (
          <li key={`a-${t.name}`}>
            <span className="badge add">+</span> <strong>{t.name}</strong> {op(t)}
          </li>
        ))}
        {report.changed.map((t) => (
          <li key={`c-${t.name}`}>
            <span className="badge change">~</span> <strong>{t.name}</strong> {op(t)}: {t.fields.join(", ")}
          </li>
        ))}
        {report.removed.map((t) => (
          <li key={`r-${t.name}`}>
            <span className="badge remove">−</span> <strong>{t.name}</strong> {op(t)}
          </li>
        ))}
        {report.kept.map((t) => (
          <li key={`k-${t.name}`}>
            <span className="badge">=</span> <strong>{t.name}</strong> {op(t)}: {t.reason}
          </li>
        ))}
      </ul>
      <ReasonGroups
        label="Skipped operations"
        items={report.skipped}
        reasonOf={(t) => t.reason}
        render={(t) => (
          <>
            {op(t)}: {t.reason}
          </>
        )}
      />
      <ReasonGroups
        label="Warnings"
        items={report.warnings}
        reasonOf={(w) => w.message}
        render={(w) => (
          <>
            <code>{w.path}</code>: {w.message}
          </>
        )}
      />
    </section>
  );
};
