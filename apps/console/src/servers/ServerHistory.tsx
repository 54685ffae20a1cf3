import type { components, Server } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import { Button } from "react-aria-components";
import { api, run } from "../api/client.js";
import type { Problem } from "../api/problem.js";
import { Busy } from "../components/Busy.js";
import { ProblemBanner } from "../components/ProblemBanner.js";

// A server's history (docs/api-rules.md §21): its kept revisions newest first, the diff of any two (per
// field and per member, and the unified text), and a restore that first shows what it will change (a dry run
// of the restore itself, so the preview is exactly what the service would store), then applies it under the
// version the page was showing (a change made meanwhile answers 409 instead of being overwritten).

type Revision = components["schemas"]["ServerRevision"];
type Diff = components["schemas"]["ServerRevisionDiff"];
type MemberChange = components["schemas"]["RevisionMemberChange"];
type FieldChange = components["schemas"]["RevisionFieldChange"];

/** The console's badge classes (styles/components.css) for each kind of change. */
const BADGE: Readonly<Record<MemberChange["change"], string>> = { added: "add", changed: "change", removed: "remove" };

const show = (value: unknown) => (value === undefined ? "—" : JSON.stringify(value));

const Fields = (props: { readonly fields: ReadonlyArray<FieldChange> }) =>
  props.fields.length === 0 ? null : (
    <ul className="diff-fields">
      {props.fields.map((f) => (
        <li key={f.path}>
          <code>{f.path || "(document)"}</code>: <del>{show(f.before)}</del> → <ins>{show(f.after)}</ins>
        </li>
      ))}
    </ul>
  );

const Members = (props: { readonly members: ReadonlyArray<MemberChange> }) =>
  props.members.length === 0 ? null : (
    <ul className="diff-members">
      {props.members.map((m) => (
        <li key={`${m.kind}:${m.name}:${m.change}`}>
          <strong>
            {m.kind} {m.name}
          </strong>{" "}
          <span className={`badge ${BADGE[m.change]}`}>{m.change}</span>
          <Fields fields={m.fields} />
          <Members members={m.members} />
        </li>
      ))}
    </ul>
  );

/** A diff as a reader wants it: the structured changes, then the unified text. */
export const DiffView = (props: { readonly diff: Diff }) => {
  const { diff } = props;
  const empty = diff.fields.length === 0 && diff.members.length === 0;
  return (
    <section className="diff" aria-label={`Changes from version ${diff.against} to version ${diff.version}`}>
      {empty ? <p className="muted">No changes.</p> : null}
      <Fields fields={diff.fields} />
      <Members members={diff.members} />
      <details>
        <summary>Unified diff</summary>
        <pre className="code">{diff.text}</pre>
      </details>
    </section>
  );
};

const VersionChoice = (props: {
  readonly label: string;
  readonly value: number;
  readonly revisions: ReadonlyArray<Revision>;
  readonly onChange: (version: number) => void;
  readonly allowNone?: boolean;
}) => (
  <label className="field">
    <span className="label">{props.label}</span>
    <select value={props.value} onChange={(e) => props.onChange(Number(e.target.value))}>
      {props.allowNone ? <option value={0}>nothing (everything added)</option> : null}
      {props.revisions.map((r) => (
        <option key={r.version} value={r.version}>
          version {r.version}: {r.summary}
        </option>
      ))}
    </select>
  </label>
);

/** The history tab of a server page; `onRestored` reloads the page after a restore. */
export const ServerHistory = (props: { readonly server: Server; readonly onRestored: () => void }) => {
  const { server } = props;
  const id = server.id;
  const [revisions, setRevisions] = useState<ReadonlyArray<Revision>>();
  const [nextToken, setNextToken] = useState("");
  const [problem, setProblem] = useState<Problem>();
  const [to, setTo] = useState(server.version);
  const [against, setAgainst] = useState(Math.max(0, server.version - 1));
  const [diff, setDiff] = useState<Diff>();
  const [preview, setPreview] = useState<{ readonly version: number; readonly diff: Diff }>();
  const [busy, setBusy] = useState(false);

  const loadPage = useCallback(
    async (token: string) => {
      const out = await run(
        api.GET("/servers/{id}/revisions", { params: { path: { id }, query: token === "" ? {} : { token } } }),
      );
      if (!out.ok) return setProblem(out.problem);
      setProblem(undefined);
      setRevisions((before) => [...(token === "" ? [] : (before ?? [])), ...out.data.revisions]);
      setNextToken(out.data.nextToken);
    },
    [id],
  );
  useEffect(() => {
    void loadPage("");
  }, [loadPage]);

  const compare = async () => {
    setBusy(true);
    const out = await run(
      api.GET("/servers/{id}/revisions/{version}/diff", {
        params: { path: { id, version: to }, query: against === 0 ? {} : { against } },
      }),
    );
    setBusy(false);
    if (!out.ok) return setProblem(out.problem);
    setProblem(undefined);
    setDiff(out.data);
  };

  const restore = async (version: number, dryRun: boolean) => {
    setBusy(true);
    const out = await run(
      api.POST("/servers/{id}/revisions/{version}/restore", {
        params: { path: { id, version }, query: dryRun ? { dryRun: true } : {} },
        body: { server: { version: server.version } },
      }),
    );
    setBusy(false);
    if (!out.ok) return setProblem(out.problem);
    setProblem(undefined);
    if (dryRun) return setPreview({ version, diff: out.data.diff });
    setPreview(undefined);
    props.onRestored();
  };

  if (revisions === undefined)
    return problem === undefined ? <Busy label="Loading the history" /> : <ProblemBanner problem={problem} />;
  return (
    <div className="stack">
      <ProblemBanner problem={problem} />
      {busy && <Busy label="Working" />}
      {preview !== undefined && (
        <section aria-labelledby="restore-preview" className="panel">
          <h2 id="restore-preview">Restore version {preview.version}?</h2>
          <p className="muted">
            The server becomes version {server.version + 1} with this change (each tool as it is now):
          </p>
          <DiffView diff={preview.diff} />
          <div className="actions">
            <Button className="button primary" isDisabled={busy} onPress={() => void restore(preview.version, false)}>
              Restore version {preview.version}
            </Button>
            <Button className="button" onPress={() => setPreview(undefined)}>
              Cancel
            </Button>
          </div>
        </section>
      )}
      <section aria-labelledby="compare-title">
        <h2 id="compare-title">Compare</h2>
        <div className="row">
          <VersionChoice label="From" value={against} revisions={revisions} onChange={setAgainst} allowNone />
          <VersionChoice label="To" value={to} revisions={revisions} onChange={setTo} />
          <Button className="button" isDisabled={busy} onPress={() => void compare()}>
            Show changes
          </Button>
        </div>
        {diff !== undefined && <DiffView diff={diff} />}
      </section>
      <table className="table" aria-label="Revisions">
        <thead>
          <tr>
            <th>Version</th>
            <th>When</th>
            <th>Who</th>
            <th>What</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {revisions.map((r) => (
            <tr key={r.version}>
              <td>{r.version}</td>
              <td>{new Date(r.createdAt).toLocaleString()}</td>
              <td>{r.actor.sub || <span className="muted">—</span>}</td>
              <td>{r.summary}</td>
              <td>
                {r.version === server.version ? (
                  <span className="muted">current</span>
                ) : (
                  <Button className="button" isDisabled={busy} onPress={() => void restore(r.version, true)}>
                    Restore…
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {nextToken !== "" && (
        <Button className="button" onPress={() => void loadPage(nextToken)}>
          Older revisions
        </Button>
      )}
    </div>
  );
};
