import type { components } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import { Button } from "react-aria-components";
import { api, run } from "../api/client.js";
import type { Problem } from "../api/problem.js";
import { ProblemBanner } from "../components/ProblemBanner.js";

type AuditEvent = components["schemas"]["AuditEvent"];

/** The audit trail (GET /audit-events), newest first, of one target (`targetID`) or of the whole tenant. */
export const AuditTrail = (props: { readonly targetId?: string; readonly refresh?: number }) => {
  const [events, setEvents] = useState<ReadonlyArray<AuditEvent>>([]);
  const [next, setNext] = useState("");
  const [problem, setProblem] = useState<Problem>();

  const load = useCallback(
    async (token: string) => {
      const out = await run(
        api.GET("/audit-events", {
          params: {
            query: {
              limit: 50,
              ...(props.targetId === undefined ? {} : { targetID: props.targetId }),
              ...(token === "" ? {} : { token }),
            },
          },
        }),
      );
      if (!out.ok) return setProblem(out.problem);
      setProblem(undefined);
      setEvents((old) => (token === "" ? out.data.auditEvents : [...old, ...out.data.auditEvents]));
      setNext(out.data.nextToken);
    },
    [props.targetId],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: `refresh` is a reload signal
  useEffect(() => {
    void load("");
  }, [load, props.refresh]);

  return (
    <section aria-labelledby="audit-title">
      <div className="heading">
        <h2 id="audit-title">Audit trail</h2>
        <Button className="button small" onPress={() => void load("")}>
          Refresh
        </Button>
      </div>
      <ProblemBanner problem={problem} />
      <table className="table" data-testid="audit">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Operation</th>
            <th scope="col">Target</th>
            <th scope="col">Who</th>
            <th scope="col">Fields</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.id}>
              <td>{new Date(e.at).toLocaleString()}</td>
              <td>{e.operation}</td>
              <td>
                {e.target.kind} <code>{e.target.id}</code>
              </td>
              <td className="wrap">{e.actor.sub}</td>
              <td className="wrap">{e.fields.join(", ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {events.length === 0 && <p className="muted">No events.</p>}
      {next !== "" && (
        <Button className="button" onPress={() => void load(next)}>
          Older events
        </Button>
      )}
    </section>
  );
};
