import type { components, Provider, Server } from "@mcpsm/client";
import { useEffect, useState } from "react";
import { Button, Checkbox, Form, Switch } from "react-aria-components";
import { api, run } from "../api/client.js";
import { fieldError, type Problem } from "../api/problem.js";
import { Busy } from "../components/Busy.js";
import { useProblemFixes } from "../api/problem-fixes.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { TextInput } from "../components/TextInput.js";
import { GitFields, gitBody, initialGitChoice } from "../extensions/GitSync.js";
import { ToolPicker } from "./ToolPicker.js";

// Compose a server: pick tools of providers (`ToolPicker`: search, expand, select matching), then prompts
// and resources of the chosen providers, and the discovery flag. An edit carries the server's `version`, so a concurrent change answers 409 ABORTED
// (docs/api-rules.md §7) and the console offers a reload.

type Prompt = components["schemas"]["ProviderPrompt"];
type Resource = components["schemas"]["ProviderResource"];

/** All providers the caller may see (the list's pages followed to the end). */
const allProviders = async (): Promise<{ providers: Array<Provider>; problem?: Problem }> => {
  const providers: Array<Provider> = [];
  let token = "";
  do {
    const out = await run(
      api.GET("/providers", { params: { query: { limit: 1000, ...(token === "" ? {} : { token }) } } }),
    );
    if (!out.ok) return { providers, problem: out.problem };
    providers.push(...out.data.providers);
    token = out.data.nextToken;
  } while (token !== "");
  return { providers };
};

export const ServerCompose = (props: {
  readonly server: Server | undefined;
  readonly onSaved: (server: Server) => void;
  readonly onReload?: () => void;
}) => {
  const s = props.server;
  const [name, setName] = useState(s?.name ?? "");
  const [description, setDescription] = useState(s?.description ?? "");
  const [discovery, setDiscovery] = useState(s?.dynamicToolDiscoveryEnabled ?? false);
  const [chosen, setChosen] = useState<ReadonlyMap<string, ReadonlySet<string>>>(
    new Map((s?.providers ?? []).map((p) => [p.id, new Set(p.tools.map((t) => t.id))])),
  );
  const [prompts, setPrompts] = useState<ReadonlySet<string>>(new Set((s?.prompts ?? []).map((p) => p.id)));
  const [resources, setResources] = useState<ReadonlySet<string>>(new Set((s?.resources ?? []).map((r) => r.id)));
  const [providers, setProviders] = useState<ReadonlyArray<Provider>>();
  const [children, setChildren] = useState<
    ReadonlyMap<string, { prompts: ReadonlyArray<Prompt>; resources: ReadonlyArray<Resource> }>
  >(new Map());
  const [answered, setProblem] = useState<Problem>();
  const { problem, edited } = useProblemFixes(answered);
  const [busy, setBusy] = useState(false);
  const [git, setGit] = useState(() => initialGitChoice(s));

  useEffect(() => {
    void allProviders().then((r) => {
      setProviders(r.providers);
      if (r.problem !== undefined) setProblem(r.problem);
    });
  }, []);

  // The prompts and resources of each chosen provider, loaded once per provider.
  useEffect(() => {
    for (const id of chosen.keys()) {
      if (children.has(id)) continue;
      void Promise.all([
        run(api.GET("/providers/{id}/prompts", { params: { path: { id } } })),
        run(api.GET("/providers/{id}/resources", { params: { path: { id } } })),
      ]).then(([p, r]) =>
        setChildren((old) =>
          new Map(old).set(id, { prompts: p.ok ? p.data.prompts : [], resources: r.ok ? r.data.resources : [] }),
        ),
      );
    }
  }, [chosen, children]);

  const order = [...chosen.keys()];
  const toggle = (set: ReadonlySet<string>, id: string, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(id);
    else next.delete(id);
    return next;
  };

  const save = async () => {
    setBusy(true);
    const body = {
      name,
      description,
      dynamicToolDiscoveryEnabled: discovery,
      providers: order.map((id) => ({ id, tools: [...(chosen.get(id) ?? [])].map((t) => ({ id: t })) })),
      prompts: [...prompts].map((id) => ({ id })),
      resources: [...resources].map((id) => ({ id })),
      ...gitBody(git),
    };
    const out =
      s === undefined
        ? await run(api.POST("/servers", { body: { server: body } }))
        : await run(
            api.PATCH("/servers/{id}", {
              params: { path: { id: s.id } },
              body: { server: { ...body, version: s.version } },
            }),
          );
    setBusy(false);
    if (out.ok) {
      setProblem(undefined);
      props.onSaved(out.data.server);
    } else setProblem(out.problem);
  };

  const providerError = (id: string) => {
    const index = order.indexOf(id);
    return index < 0 ? undefined : fieldError(problem, `server.providers[${index}]`);
  };
  const placed = (path: string) =>
    path.startsWith("server.name") ||
    path.startsWith("server.description") ||
    path.startsWith("server.git") ||
    /^server\.providers\[\d+\]/.test(path);
  const chosenChildren = order.map((id) => children.get(id)).filter((c) => c !== undefined);

  return (
    <Form
      className="form compose"
      aria-label={s === undefined ? "New server" : `Compose ${s.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <TextInput
        label="Server name"
        value={name}
        onChange={(v) => {
          edited("server.name");
          setName(v);
        }}
        error={fieldError(problem, "server.name")}
        isRequired
      />
      <TextInput
        label="Instructions"
        multiline
        value={description}
        onChange={(v) => {
          edited("server.description");
          setDescription(v);
        }}
        error={fieldError(problem, "server.description")}
      />
      <Switch className="switch" isSelected={discovery} onChange={setDiscovery}>
        <span className="track" aria-hidden="true" />
        Dynamic tool discovery (clients see searchTools/useTool instead of every tool)
      </Switch>

      <ToolPicker
        providers={providers}
        chosen={chosen}
        onChange={(next) => {
          edited("server.providers");
          setChosen(next);
        }}
        providerError={providerError}
      />

      {chosenChildren.some((c) => c.prompts.length + c.resources.length > 0) && (
        <fieldset className="picker">
          <legend>Prompts and resources</legend>
          <ul>
            {chosenChildren
              .flatMap((c) => c.prompts)
              .map((p) => (
                <li key={p.id}>
                  <Checkbox
                    className="checkbox"
                    isSelected={prompts.has(p.id)}
                    onChange={(on) => setPrompts((old) => toggle(old, p.id, on))}
                  >
                    <span className="box" aria-hidden="true" />
                    Prompt {p.name}
                  </Checkbox>
                </li>
              ))}
            {chosenChildren
              .flatMap((c) => c.resources)
              .map((r) => (
                <li key={r.id}>
                  <Checkbox
                    className="checkbox"
                    isSelected={resources.has(r.id)}
                    onChange={(on) => setResources((old) => toggle(old, r.id, on))}
                  >
                    <span className="box" aria-hidden="true" />
                    Resource {r.name}
                  </Checkbox>
                </li>
              ))}
          </ul>
        </fieldset>
      )}
      <GitFields server={s} choice={git} onChange={setGit} problem={problem} />
      <ProblemBanner
        problem={problem}
        unplaced={(problem?.errors ?? []).filter((e) => !placed(e.path))}
        {...(props.onReload === undefined ? {} : { onReload: props.onReload })}
      />
      {busy && <Busy label="Saving the server" />}
      <Button type="submit" className="button primary" isDisabled={busy}>
        {s === undefined ? "Create server" : "Save server"}
      </Button>
    </Form>
  );
};
