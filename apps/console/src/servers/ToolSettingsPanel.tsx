import type { components, Server } from "@mcpsm/client";
import { useState } from "react";
import { Button } from "react-aria-components";
import { api, run } from "../api/client.js";
import { localProblem, type Problem } from "../api/problem.js";
import { ProblemBanner } from "../components/ProblemBanner.js";

// docs/api-rules.md §20 in the console: how this server offers each tool it uses (its alias, its description
// here, the arguments it pins, whether a call waits for a person's approval), and the server's approval policy.

type ServerTool = Server["providers"][number]["tools"][number];
type FixedArgs = components["schemas"]["FixedArgs"];
type ToolApproval = components["schemas"]["ToolApproval"];
type ApprovalPolicy = components["schemas"]["ApprovalPolicy"];

const POLICIES: ReadonlyArray<readonly [ApprovalPolicy, string]> = [
  ["NONE", "No call waits for approval"],
  ["DESTRUCTIVE", "Destructive calls (DELETE, tools marked destructive) wait for approval"],
  ["WRITES", "Every call but GET, HEAD and OPTIONS waits for approval"],
];
const APPROVALS: ReadonlyArray<readonly [ToolApproval, string]> = [
  ["INHERIT", "As the server's policy says"],
  ["NEVER", "Never"],
  ["ALWAYS", "Always"],
];

/** The names a tool's part accepts (from its JSON Schema), to hint what can be pinned. */
const argumentNames = (tool: ServerTool) =>
  (
    [
      ["pathArgs", tool.pathArgsJSONSchema],
      ["queryArgs", tool.queryArgsJSONSchema],
      ["bodyArgs", tool.reqBodyJSONSchema],
    ] as const
  ).flatMap(([part, schema]) =>
    Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {}).map((name) => `${part}.${name}`),
  );

const pinnedCount = (fixed: FixedArgs | undefined) =>
  Object.values(fixed ?? {}).reduce((n, part) => n + Object.keys(part ?? {}).length, 0);

/** One tool's settings in this server, as a form. */
const ToolSettingsForm = (props: {
  readonly serverId: string;
  readonly tool: ServerTool;
  readonly onSaved: () => void;
}) => {
  const { tool } = props;
  const settings = tool.serverSettings;
  const [alias, setAlias] = useState(settings?.alias ?? "");
  const [description, setDescription] = useState(settings?.description ?? "");
  const [pinned, setPinned] = useState(
    pinnedCount(settings?.fixedArgs) === 0 ? "" : JSON.stringify(settings?.fixedArgs, null, 2),
  );
  const [approval, setApproval] = useState<ToolApproval>(settings?.approval ?? "INHERIT");
  const [problem, setProblem] = useState<Problem>();
  const [saved, setSaved] = useState(false);
  const names = argumentNames(tool);
  const prefix = `tool-${tool.id}`;

  const save = async () => {
    setSaved(false);
    let fixedArgs: FixedArgs = {};
    try {
      fixedArgs = pinned.trim() === "" ? {} : (JSON.parse(pinned) as FixedArgs);
    } catch (cause) {
      return setProblem(localProblem(`Pinned arguments are not JSON: ${(cause as Error).message}`));
    }
    const out = await run(
      api.PATCH("/servers/{id}/tools/{toolID}", {
        params: { path: { id: props.serverId, toolID: tool.id ?? "" } },
        body: { tool: { alias, description, fixedArgs, approval } },
      }),
    );
    if (!out.ok) return setProblem(out.problem);
    setProblem(undefined);
    setSaved(true);
    props.onSaved();
  };

  return (
    <form
      className="form"
      aria-label={`Settings of ${tool.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <ProblemBanner problem={problem} />
      <div className="field">
        <label htmlFor={`${prefix}-alias`}>Alias</label>
        <input
          id={`${prefix}-alias`}
          value={alias}
          placeholder={tool.name}
          onChange={(e) => setAlias(e.target.value)}
        />
        <span slot="description">The tool's name for this server's callers; empty for its own name.</span>
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-description`}>Description here</label>
        <textarea
          id={`${prefix}-description`}
          rows={3}
          value={description}
          placeholder={tool.description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-pinned`}>Pinned arguments (JSON)</label>
        <textarea
          id={`${prefix}-pinned`}
          className="mono"
          rows={4}
          value={pinned}
          placeholder={'{"pathArgs": {"org": "acme"}}'}
          onChange={(e) => setPinned(e.target.value)}
        />
        <span slot="description">
          Values merged into every call, hidden from callers and never overridden.
          {names.length > 0 && <> Arguments: {names.join(", ")}.</>}
        </span>
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-approval`}>Approval before a call</label>
        <select
          id={`${prefix}-approval`}
          value={approval}
          onChange={(e) => setApproval(e.target.value as ToolApproval)}
        >
          {APPROVALS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div className="actions">
        <Button type="submit" className="button primary">
          Save {tool.name}
        </Button>
        {saved && (
          <span role="status" className="muted">
            Saved
          </span>
        )}
      </div>
    </form>
  );
};

/** The server's approval policy and each of its tools' settings. */
export const ToolSettingsPanel = (props: { readonly server: Server; readonly onSaved: () => void }) => {
  const { server } = props;
  const [policy, setPolicy] = useState<ApprovalPolicy>(server.approvalPolicy);
  const [problem, setProblem] = useState<Problem>();
  const tools = server.providers.flatMap((p) => p.tools.map((tool) => ({ provider: p.name, tool })));
  const savePolicy = async () => {
    const out = await run(
      api.PATCH("/servers/{id}", {
        params: { path: { id: server.id ?? "" } },
        body: { server: { approvalPolicy: policy, version: server.version } },
      }),
    );
    if (!out.ok) return setProblem(out.problem);
    setProblem(undefined);
    props.onSaved();
  };
  return (
    <section aria-labelledby="tool-settings-title">
      <h2 id="tool-settings-title">Tool settings</h2>
      <ProblemBanner problem={problem} onReload={props.onSaved} />
      <div className="row">
        <div className="field">
          <label htmlFor="approval-policy">Approval policy</label>
          <select id="approval-policy" value={policy} onChange={(e) => setPolicy(e.target.value as ApprovalPolicy)}>
            {POLICIES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <Button className="button" isDisabled={policy === server.approvalPolicy} onPress={() => void savePolicy()}>
          Save policy
        </Button>
      </div>
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Provider</th>
            <th scope="col">Offered as</th>
            <th scope="col">Pinned</th>
            <th scope="col">Approval</th>
          </tr>
        </thead>
        <tbody>
          {tools.map(({ provider, tool }) => (
            <tr key={tool.id}>
              <td data-label="Tool">
                <code>{tool.name}</code>
              </td>
              <td data-label="Provider">{provider}</td>
              <td data-label="Offered as">
                <code>{tool.serverSettings?.alias || tool.name}</code>
              </td>
              <td data-label="Pinned">{pinnedCount(tool.serverSettings?.fixedArgs)}</td>
              <td data-label="Approval">{tool.serverSettings?.approval ?? "INHERIT"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {tools.length === 0 && <p className="muted">This server uses no tools yet.</p>}
      {tools.map(({ tool }) => (
        <details key={tool.id} className="tool-settings">
          <summary>
            Edit <code>{tool.name}</code>
          </summary>
          <ToolSettingsForm serverId={server.id ?? ""} tool={tool} onSaved={props.onSaved} />
        </details>
      ))}
    </section>
  );
};
