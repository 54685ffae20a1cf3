import type { components, Provider, Server } from "@mcpsm/client";
import { useEffect, useMemo, useState } from "react";
import { Button, Checkbox, Form, SearchField, Input, Label, Switch } from "react-aria-components";
import { api, run } from "../api/client.js";
import { fieldError, type Problem } from "../api/problem.js";
import { Busy } from "../components/Busy.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { TextInput } from "../components/TextInput.js";
import { GitFields, gitBody, initialGitChoice } from "../extensions/GitSync.js";

// Compose a server: pick providers and, per provider, its tools (search as you type over names,
// descriptions and paths, with counts), then prompts and resources of the chosen providers, and the
// discovery flag. An edit carries the server's `version`, so a concurrent change answers 409 ABORTED
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

const matches = (query: string, ...texts: ReadonlyArray<string>) => {
  const q = query.trim().toLowerCase();
  return q === "" || texts.some((t) => t.toLowerCase().includes(q));
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
  const [query, setQuery] = useState("");
  const [problem, setProblem] = useState<Problem>();
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
  const toolCount = [...chosen.values()].reduce((n, set) => n + set.size, 0);
  const shown = useMemo(
    () =>
      (providers ?? [])
        .map((p) => ({
          provider: p,
          tools: p.tools.filter(
            (t) => matches(query, t.name, t.title, t.description, t.path) || matches(query, p.name),
          ),
        }))
        .filter(({ provider, tools }) => tools.length > 0 || matches(query, provider.name, provider.baseURL)),
    [providers, query],
  );

  const toggleProvider = (p: Provider, on: boolean) =>
    setChosen((old) => {
      const next = new Map(old);
      if (on) next.set(p.id, new Set(p.tools.map((t) => t.id)));
      else next.delete(p.id);
      return next;
    });
  const toggleTool = (p: Provider, toolId: string, on: boolean) =>
    setChosen((old) => {
      const next = new Map(old);
      const tools = new Set(next.get(p.id) ?? []);
      if (on) tools.add(toolId);
      else tools.delete(toolId);
      next.set(p.id, tools);
      return next;
    });
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
        onChange={setName}
        error={fieldError(problem, "server.name")}
        isRequired
      />
      <TextInput
        label="Instructions"
        multiline
        value={description}
        onChange={setDescription}
        error={fieldError(problem, "server.description")}
      />
      <Switch className="switch" isSelected={discovery} onChange={setDiscovery}>
        <span className="track" aria-hidden="true" />
        Dynamic tool discovery (clients see searchTools/callTool instead of every tool)
      </Switch>

      <fieldset className="picker">
        <legend>
          Tools:{" "}
          <span aria-live="polite">
            {toolCount} selected from {chosen.size} provider{chosen.size === 1 ? "" : "s"}
          </span>
        </legend>
        <SearchField className="field" value={query} onChange={setQuery} aria-label="Search providers and tools">
          <Label>Search providers and tools</Label>
          <Input placeholder="name, description or path" />
        </SearchField>
        {providers === undefined && <Busy label="Loading providers" />}
        {providers !== undefined && (
          <p className="muted">{shown.reduce((n, x) => n + x.tools.length, 0)} tools match</p>
        )}
        <ul className="provider-picks">
          {shown.map(({ provider, tools }) => {
            const picked = chosen.get(provider.id);
            return (
              <li key={provider.id} className="provider-pick">
                <Checkbox
                  className="checkbox"
                  isSelected={picked !== undefined}
                  onChange={(on) => toggleProvider(provider, on)}
                >
                  <span className="box" aria-hidden="true" />
                  <strong>{provider.name}</strong>{" "}
                  <span className="muted">
                    {picked?.size ?? 0} of {provider.tools.length} tools
                  </span>
                </Checkbox>
                {providerError(provider.id) !== undefined && (
                  <div className="field-error" role="alert">
                    {providerError(provider.id)}
                  </div>
                )}
                {picked !== undefined && (
                  <ul className="tool-picks">
                    {tools.map((t) => (
                      <li key={t.id}>
                        <Checkbox
                          className="checkbox"
                          isSelected={picked.has(t.id)}
                          onChange={(on) => toggleTool(provider, t.id, on)}
                        >
                          <span className="box" aria-hidden="true" />
                          {t.name}{" "}
                          <code className="muted">
                            {t.method} {t.path}
                          </code>
                        </Checkbox>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            );
          })}
        </ul>
      </fieldset>

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
