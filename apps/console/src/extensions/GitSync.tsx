import type { components, Server } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import {
  Button,
  FieldError,
  Form,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select,
  SelectValue,
} from "react-aria-components";
import { api, run } from "../api/client.js";
import { fieldError, type Problem } from "../api/problem.js";
import { Busy } from "../components/Busy.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { TextInput } from "../components/TextInput.js";

// Git connections (`/git-connections`, docs/api-rules.md §17) and a server's sync state
// (`GET /servers/{id}/git-sync`). A connection's token is write-only: the console sends it once, in a
// password field it clears after the create, and never shows it (the service never answers it).

type GitConnection = components["schemas"]["GitConnection"];
type GitSyncState = components["schemas"]["GitSync"];
type Kind = GitConnection["kind"];

const KINDS: ReadonlyArray<Kind> = ["GITHUB", "GITLAB", "GENERIC"];

/** The tenant's git connections, loaded once (undefined while loading). */
export const useGitConnections = () => {
  const [connections, setConnections] = useState<ReadonlyArray<GitConnection>>();
  const [problem, setProblem] = useState<Problem>();
  const load = useCallback(async () => {
    const out = await run(api.GET("/git-connections"));
    if (out.ok) {
      setConnections(out.data.gitConnections);
      setProblem(undefined);
    } else setProblem(out.problem);
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  return { connections, problem, load };
};

/** A labelled single choice (react-aria Select) whose error is shown under it. */
const Choice = (props: {
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly options: ReadonlyArray<{ id: string; label: string }>;
  readonly error?: string | undefined;
}) => (
  <Select
    className="field"
    selectedKey={props.value}
    onSelectionChange={(k) => props.onChange(String(k))}
    isInvalid={props.error !== undefined}
    validationBehavior="aria"
  >
    <Label className="label">{props.label}</Label>
    <Button className="button select">
      <SelectValue />
    </Button>
    <FieldError className="field-error">{props.error}</FieldError>
    <Popover>
      <ListBox className="listbox">
        {props.options.map((o) => (
          <ListBoxItem key={o.id} id={o.id}>
            {o.label}
          </ListBoxItem>
        ))}
      </ListBox>
    </Popover>
  </Select>
);

/** The git fields of a server write: which connection (or none, or unchanged) and the repository. */
export interface GitChoice {
  /** "keep": leave the server's connection as it is; "": disconnect; else a connection id. */
  readonly connection: string;
  readonly repo: string;
  /** Whether the person changed either field (an untouched form sends no git field). */
  readonly touched: boolean;
}

/** The initial choice for a server (or a new one). */
export const initialGitChoice = (server: Server | undefined): GitChoice => ({
  connection: server !== undefined && server.gitProvider !== "" ? "keep" : "",
  repo: server?.gitRepoFullName ?? "",
  touched: false,
});

/** The git part of a server write body. */
export const gitBody = (choice: GitChoice): { gitConnectionID?: string; gitRepoFullName?: string } =>
  !choice.touched
    ? {}
    : {
        ...(choice.connection === "keep" ? {} : { gitConnectionID: choice.connection }),
        gitRepoFullName: choice.repo.trim(),
      };

/** The server form's git fields: a connection (GitHub, GitLab, any git host) and `owner/repo`. */
export const GitFields = (props: {
  readonly server: Server | undefined;
  readonly choice: GitChoice;
  readonly onChange: (choice: GitChoice) => void;
  readonly problem: Problem | undefined;
}) => {
  const { connections } = useGitConnections();
  const { choice } = props;
  const options = [
    ...(props.server !== undefined && props.server.gitProvider !== ""
      ? [{ id: "keep", label: `Unchanged (${props.server.gitProvider})` }]
      : []),
    { id: "", label: "None" },
    ...(connections ?? []).map((c) => ({ id: c.id, label: `${c.name} (${c.kind})` })),
  ];
  return (
    <fieldset className="picker">
      <legend>Git sync</legend>
      <div className="row">
        <Choice
          label="Git connection"
          value={choice.connection}
          onChange={(connection) => props.onChange({ ...choice, connection, touched: true })}
          options={options}
          error={fieldError(props.problem, "server.gitConnectionID")}
        />
        <TextInput
          label="Repository (owner/repo)"
          value={choice.repo}
          onChange={(repo) => props.onChange({ ...choice, repo, touched: true })}
          error={fieldError(props.problem, "server.gitRepoFullName")}
        />
      </div>
      {connections?.length === 0 && (
        <p className="muted">
          No git connection yet: <a href="#/git-connections">add one</a>.
        </p>
      )}
    </fieldset>
  );
};

const STATE_TEXT: Readonly<Record<GitSyncState["state"], string>> = {
  SYNCED: "the repository holds the current state",
  PENDING: "a change waits to be pushed",
  FAILED: "the last push failed; it is retried",
  OFF: "no git connection",
};

/** The server's git sync state (SYNCED, PENDING, FAILED, OFF), its last commit and error, with a refresh. */
export const GitSync = (props: { readonly server: Server }) => {
  const id = props.server.id;
  const [sync, setSync] = useState<GitSyncState>();
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  const load = useCallback(async () => {
    setBusy(true);
    const out = await run(api.GET("/servers/{id}/git-sync", { params: { path: { id } } }));
    setBusy(false);
    if (out.ok) {
      setSync(out.data.gitSync);
      setProblem(undefined);
    } else setProblem(out.problem);
  }, [id]);
  // Reloaded whenever the server changes (a save raises its version).
  // biome-ignore lint/correctness/useExhaustiveDependencies: the version is the trigger
  useEffect(() => {
    void load();
  }, [load, props.server.version]);
  return (
    <section aria-labelledby="git-title" className="git-sync">
      <div className="heading">
        <h2 id="git-title">Git sync</h2>
        <Button className="button small" onPress={() => void load()} isDisabled={busy}>
          Refresh sync state
        </Button>
      </div>
      <ProblemBanner problem={problem} />
      {busy && sync === undefined && <Busy label="Loading the sync state" />}
      {sync !== undefined && (
        <dl className="facts" data-testid="git-sync">
          <dt>State</dt>
          <dd>
            <span className={`badge sync-${sync.state.toLowerCase()}`}>{sync.state}</span>{" "}
            <span className="muted">{STATE_TEXT[sync.state]}</span>
          </dd>
          <dt>Repository</dt>
          <dd>
            {props.server.gitRepoFullName === "" ? (
              <span className="muted">none</span>
            ) : (
              <>
                <code>{props.server.gitRepoFullName}</code>
                {props.server.gitProvider !== "" && <span className="muted"> on {props.server.gitProvider}</span>}
              </>
            )}
          </dd>
          <dt>Last commit</dt>
          <dd>{sync.commit === "" ? <span className="muted">none</span> : <code>{sync.commit}</code>}</dd>
          <dt>Pushed at</dt>
          <dd>{sync.pushedAt === "" ? <span className="muted">never</span> : sync.pushedAt}</dd>
          {sync.error !== "" && (
            <>
              <dt>Error</dt>
              <dd className="field-error">{sync.error}</dd>
            </>
          )}
        </dl>
      )}
    </section>
  );
};

/** The tenant's git connections: list, create (the token write-only), delete. */
export const GitConnectionsPage = () => {
  const { connections, problem: loadProblem, load } = useGitConnections();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<Kind>("GITHUB");
  const [baseURL, setBaseURL] = useState("");
  const [username, setUsername] = useState("");
  const [token, setToken] = useState("");
  const [problem, setProblem] = useState<Problem>();
  const [actionProblem, setActionProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);

  const create = async () => {
    setBusy(true);
    const out = await run(
      api.POST("/git-connections", {
        body: {
          gitConnection: {
            name,
            kind,
            token,
            ...(baseURL.trim() === "" ? {} : { baseURL: baseURL.trim() }),
            ...(username.trim() === "" ? {} : { username: username.trim() }),
          },
        },
      }),
    );
    setBusy(false);
    if (!out.ok) return setProblem(out.problem);
    setProblem(undefined);
    setName("");
    setBaseURL("");
    setUsername("");
    setToken("");
    void load();
  };

  const placed = [
    "gitConnection.name",
    "gitConnection.kind",
    "gitConnection.baseURL",
    "gitConnection.username",
    "gitConnection.token",
  ];
  return (
    <section aria-labelledby="git-connections-title">
      <h1 id="git-connections-title">Git connections</h1>
      <p className="muted">
        A server with a git connection and a repository pushes its export, README and one file per tool to that
        repository after every change.
      </p>
      <ProblemBanner problem={loadProblem ?? actionProblem} />
      {connections === undefined && loadProblem === undefined && <Busy label="Loading git connections" />}
      {connections !== undefined && connections.length > 0 && (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Host</th>
              <th scope="col">User</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {connections.map((c) => (
              <tr key={c.id}>
                <td>{c.name}</td>
                <td>{c.kind}</td>
                <td>
                  <code>{c.baseURL}</code>
                </td>
                <td>{c.username === "" ? <span className="muted">default</span> : c.username}</td>
                <td>{c.createdAt}</td>
                <td>
                  <Button
                    className="button small danger"
                    onPress={async () => {
                      if (!window.confirm(`Delete the git connection ${c.name}? Its servers stop syncing.`)) return;
                      const out = await run(api.DELETE("/git-connections/{id}", { params: { path: { id: c.id } } }));
                      if (out.ok) {
                        setActionProblem(undefined);
                        void load();
                      } else setActionProblem(out.problem);
                    }}
                  >
                    Delete {c.name}
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {connections?.length === 0 && <p className="muted">No git connections yet.</p>}
      <h2>New git connection</h2>
      <Form
        className="form"
        aria-label="New git connection"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <div className="row">
          <TextInput
            label="Connection name"
            value={name}
            onChange={setName}
            isRequired
            error={fieldError(problem, "gitConnection.name")}
          />
          <Choice
            label="Kind"
            value={kind}
            onChange={(k) => setKind(k as Kind)}
            options={KINDS.map((k) => ({ id: k, label: k }))}
            error={fieldError(problem, "gitConnection.kind")}
          />
        </div>
        <div className="row">
          <TextInput
            label="Host URL"
            type="url"
            value={baseURL}
            onChange={setBaseURL}
            description="Default https://github.com or https://gitlab.com; required for a generic host"
            error={fieldError(problem, "gitConnection.baseURL")}
          />
          <TextInput
            label="Username"
            value={username}
            onChange={setUsername}
            description="Optional: the HTTP user the token goes with"
            error={fieldError(problem, "gitConnection.username")}
          />
        </div>
        <TextInput
          label="Token"
          type="password"
          value={token}
          onChange={setToken}
          isRequired
          description="Write-only: stored encrypted, never shown again"
          error={fieldError(problem, "gitConnection.token")}
        />
        <ProblemBanner
          problem={problem}
          unplaced={(problem?.errors ?? []).filter((e) => !placed.some((p) => e.path.startsWith(p)))}
        />
        {busy && <Busy label="Creating the git connection" />}
        <Button type="submit" className="button primary" isDisabled={busy}>
          Create git connection
        </Button>
      </Form>
    </section>
  );
};
