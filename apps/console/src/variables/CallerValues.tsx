import type { components } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import { Button } from "react-aria-components";
import { api, run } from "../api/client.js";
import type { Problem } from "../api/problem.js";
import { ProblemBanner } from "../components/ProblemBanner.js";

// A per-caller variable's own values (docs/api-rules.md §23: `GET /variables/{id}/caller-values`, delete with
// `DELETE /variables/{id}/caller-values/{principal}`): how many people set their own, who, and removing one
// (that caller is asked again on its next call). The service never answers a value.

type CallerValue = components["schemas"]["CallerValue"];

/** "N people set their own value", with the list and a delete per person. */
export const CallerValues = (props: { readonly variableId: string; readonly name: string }) => {
  const id = props.variableId;
  const [values, setValues] = useState<ReadonlyArray<CallerValue>>();
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const load = useCallback(async () => {
    const out = await run(api.GET("/variables/{id}/caller-values", { params: { path: { id } } }));
    if (out.ok) {
      setValues(out.data.callerValues);
      setProblem(undefined);
    } else setProblem(out.problem);
  }, [id]);
  useEffect(() => {
    void load();
  }, [load]);
  const count = values?.length ?? 0;
  return (
    <div className="caller-values">
      <ProblemBanner problem={problem} />
      {values !== undefined && (
        <Button className="button small" onPress={() => setOpen(!open)} aria-expanded={open}>
          {count === 1 ? "1 person set their own value" : `${count} people set their own value`}
        </Button>
      )}
      {open && values !== undefined && values.length > 0 && (
        <ul aria-label={`Callers with their own ${props.name}`}>
          {values.map((v) => (
            <li key={v.principal}>
              <code>{v.principal}</code> <span className="muted">since {new Date(v.updatedAt).toLocaleString()}</span>{" "}
              <Button
                className="button small danger"
                aria-label={`Delete the value of ${v.principal}`}
                onPress={async () => {
                  const out = await run(
                    api.DELETE("/variables/{id}/caller-values/{principal}", {
                      params: { path: { id, principal: v.principal } },
                    }),
                  );
                  if (out.ok) void load();
                  else setProblem(out.problem);
                }}
              >
                Delete
              </Button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
};
