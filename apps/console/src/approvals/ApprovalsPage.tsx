import type { components } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import { Button } from "react-aria-components";
import { api, run } from "../api/client.js";
import type { Problem } from "../api/problem.js";
import { Busy } from "../components/Busy.js";
import { ProblemBanner } from "../components/ProblemBanner.js";

// docs/api-rules.md §20: the tool calls of this tenant waiting for a person's approval (GET /approvals), each
// approved or denied here as an out-of-band approver (POST /approvals/{id}/decision, scope approval:decide).

type Approval = components["schemas"]["Approval"];
type Decision = components["schemas"]["ApprovalDecision"]["decision"];

/** The pending approvals, oldest first, with Approve and Deny. */
export const ApprovalsPage = () => {
  const [approvals, setApprovals] = useState<ReadonlyArray<Approval>>();
  const [problem, setProblem] = useState<Problem>();
  const [told, setTold] = useState("");
  const load = useCallback(async () => {
    const out = await run(api.GET("/approvals"));
    if (!out.ok) return setProblem(out.problem);
    setApprovals(out.data.approvals);
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const decide = async (approval: Approval, decision: Decision) => {
    const out = await run(
      api.POST("/approvals/{approvalID}/decision", {
        params: { path: { approvalID: approval.id } },
        body: { decision },
      }),
    );
    if (!out.ok) setProblem(out.problem);
    else {
      setProblem(undefined);
      setTold(
        `${decision === "APPROVE" ? "Approved" : "Denied"} the call of ${approval.toolName}${
          decision === "APPROVE" ? ": it runs when the caller calls again." : "."
        }`,
      );
    }
    await load();
  };

  return (
    <section aria-labelledby="approvals-title">
      <div className="heading">
        <h1 id="approvals-title">Approvals</h1>
        <Button className="button small" onPress={() => void load()}>
          Refresh
        </Button>
      </div>
      <p className="muted">
        Tool calls waiting for a person. An approval serves that caller's next call with exactly these arguments, once;
        after 10 minutes it expires.
      </p>
      <ProblemBanner problem={problem} />
      {told !== "" && (
        <p role="status" className="notice">
          {told}
        </p>
      )}
      {approvals === undefined && problem === undefined && <Busy label="Loading approvals" />}
      {approvals !== undefined && approvals.length > 0 && (
        <table className="table" data-testid="approvals">
          <thead>
            <tr>
              <th scope="col">Asked</th>
              <th scope="col">Server</th>
              <th scope="col">Tool</th>
              <th scope="col">Caller</th>
              <th scope="col">Arguments</th>
              <th scope="col">Expires</th>
              <th scope="col">Decision</th>
            </tr>
          </thead>
          <tbody>
            {approvals.map((a) => (
              <tr key={a.id}>
                <td data-label="Asked">{new Date(a.createdAt).toLocaleString()}</td>
                <td data-label="Server">
                  <a href={`#/servers/${a.serverID}`}>
                    <code>{a.serverID}</code>
                  </a>
                </td>
                <td data-label="Tool">
                  <code>{a.toolName}</code>
                </td>
                <td data-label="Caller" className="wrap">
                  {a.principal}
                </td>
                <td data-label="Arguments" className="wrap">
                  <pre className="args">{a.arguments}</pre>
                </td>
                <td data-label="Expires">{new Date(a.expiresAt).toLocaleTimeString()}</td>
                <td data-label="Decision">
                  <div className="inline">
                    <Button
                      className="button primary small"
                      aria-label={`Approve ${a.toolName} ${a.id}`}
                      onPress={() => void decide(a, "APPROVE")}
                    >
                      Approve
                    </Button>
                    <Button
                      className="button danger small"
                      aria-label={`Deny ${a.toolName} ${a.id}`}
                      onPress={() => void decide(a, "DENY")}
                    >
                      Deny
                    </Button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {approvals?.length === 0 && <p className="muted">No call is waiting for approval.</p>}
    </section>
  );
};
