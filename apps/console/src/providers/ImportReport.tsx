import type { components } from "@mcpsm/client";

type Report = components["schemas"]["ImportReport"];

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
        {report.skipped.map((t) => (
          <li key={`s-${t.method}-${t.path}`}>
            <span className="badge">skipped</span> {op(t)}: {t.reason}
          </li>
        ))}
      </ul>
      {report.warnings.length > 0 && (
        <details>
          <summary>{report.warnings.length} warnings</summary>
          <ul>
            {report.warnings.map((w) => (
              <li key={`${w.path}:${w.message}`}>
                <code>{w.path}</code>: {w.message}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
};
