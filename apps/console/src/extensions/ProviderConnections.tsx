import type { components } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import { Button } from "react-aria-components";
import { api, run } from "../api/client.js";
import type { Problem } from "../api/problem.js";
import { Busy } from "../components/Busy.js";
import { ProblemBanner } from "../components/ProblemBanner.js";

// A provider's upstream OAuth connections (`GET /providers/{id}/connections`, revoke with
// `DELETE /providers/{id}/connections/{connectionID}`): one per MCP caller that consented. The service never
// answers a token, so the list holds who, which scopes and when only.

type Connection = components["schemas"]["UpstreamConnection"];

/** The provider's OAuth connections (shown when the provider calls its upstream with OAuth 2.0). */
export const ProviderConnections = (props: { readonly providerId: string; readonly hasOAuth: boolean }) => {
  const id = props.providerId;
  const [connections, setConnections] = useState<ReadonlyArray<Connection>>();
  const [problem, setProblem] = useState<Problem>();
  const load = useCallback(async () => {
    const out = await run(api.GET("/providers/{id}/connections", { params: { path: { id } } }));
    if (out.ok) {
      setConnections(out.data.connections);
      setProblem(undefined);
    } else setProblem(out.problem);
  }, [id]);
  useEffect(() => {
    if (props.hasOAuth) void load();
  }, [load, props.hasOAuth]);
  if (!props.hasOAuth) return null;
  return (
    <section aria-labelledby="connections-title">
      <h2 id="connections-title">OAuth connections</h2>
      <p className="muted">
        Each MCP caller that consented to this provider's OAuth 2.0 has one connection. Revoking it makes that caller
        consent again.
      </p>
      <ProblemBanner problem={problem} />
      {connections === undefined && problem === undefined && <Busy label="Loading connections" />}
      {connections?.length === 0 && <p className="muted">No connections yet.</p>}
      {connections !== undefined && connections.length > 0 && (
        <table className="table" aria-label="OAuth connections">
          <thead>
            <tr>
              <th scope="col">Principal</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Refreshable</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {connections.map((c) => (
              <tr key={c.id}>
                <td>
                  <code>{c.principal}</code>
                </td>
                <td className="wrap">
                  {c.scopes.length === 0 ? <span className="muted">none</span> : c.scopes.join(" ")}
                </td>
                <td>{c.createdAt}</td>
                <td>{c.expiresAt}</td>
                <td>{c.refreshable ? "yes" : "no"}</td>
                <td>
                  <Button
                    className="button small danger"
                    aria-label={`Revoke ${c.principal}`}
                    onPress={async () => {
                      if (!window.confirm(`Revoke the connection of ${c.principal}? It will have to consent again.`))
                        return;
                      const out = await run(
                        api.DELETE("/providers/{id}/connections/{connectionID}", {
                          params: { path: { id, connectionID: c.id } },
                        }),
                      );
                      if (out.ok) void load();
                      else setProblem(out.problem);
                    }}
                  >
                    Revoke
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
};
