import type { components, Provider } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import { Button, Tab, TabList, TabPanel, Tabs } from "react-aria-components";
import { api, run } from "../api/client.js";
import { fieldError, type Problem } from "../api/problem.js";
import { navigate } from "../app/route.js";
import { Busy } from "../components/Busy.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { ProviderConnections } from "../extensions/ProviderConnections.js";
import { PromptsSection, ResourcesSection } from "./ChildRecords.js";
import { DocumentSource } from "./DocumentSource.js";
import { ImportReportView } from "./ImportReport.js";
import { EMPTY_PROVIDER, fieldsOf, ProviderForm, providerBody } from "./ProviderForm.js";
import { ToolTable } from "./ToolTable.js";

type Prompt = components["schemas"]["ProviderPrompt"];
type Resource = components["schemas"]["ProviderResource"];
type Result = components["schemas"]["ImportResult"];

/** Create a provider by hand. */
export const NewProviderPage = () => {
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  return (
    <section aria-labelledby="new-provider-title">
      <h1 id="new-provider-title">New provider</h1>
      <ProviderForm
        initial={EMPTY_PROVIDER}
        submitLabel="Create provider"
        problem={problem}
        busy={busy}
        onSubmit={async (f) => {
          setBusy(true);
          const out = await run(api.POST("/providers", { body: { provider: providerBody(f) } }));
          setBusy(false);
          if (out.ok) navigate(`/providers/${out.data.provider.id}`);
          else setProblem(out.problem);
        }}
      />
    </section>
  );
};

/** Re-sync from a new version of the description: the diff first, then Apply. */
const Resync = (props: {
  readonly provider: Provider;
  readonly etag: string | null;
  readonly onApplied: () => void;
}) => {
  const [text, setText] = useState("");
  const [url, setUrl] = useState("");
  const [preview, setPreview] = useState<Result>();
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState<string>();
  const send = async (dryRun: boolean) => {
    setBusy(dryRun ? "Comparing" : "Re-syncing");
    const out = await run(
      api.POST("/providers/{id}/import", {
        params: { path: { id: props.provider.id } },
        body: { import: { ...(url.trim() === "" ? { document: text } : { url: url.trim() }), dryRun } },
      }),
    );
    setBusy(undefined);
    if (!out.ok) return setProblem(out.problem);
    setProblem(undefined);
    if (dryRun) setPreview(out.data);
    else {
      setPreview(undefined);
      setText("");
      setUrl("");
      props.onApplied();
    }
  };
  return (
    <section aria-labelledby="resync-title">
      <h2 id="resync-title">Re-sync from an OpenAPI description</h2>
      <DocumentSource
        value={text}
        onChange={(t) => {
          setText(t);
          setPreview(undefined);
        }}
        error={fieldError(problem, "import.document")}
        url={url}
        onUrlChange={(u) => {
          setUrl(u);
          setPreview(undefined);
        }}
        urlError={fieldError(problem, "import.url")}
      />
      <ProblemBanner problem={problem} />
      {busy !== undefined && <Busy label={busy} />}
      <div className="actions">
        <Button
          className="button"
          isDisabled={(text.trim() === "" && url.trim() === "") || busy !== undefined}
          onPress={() => void send(true)}
        >
          Show the diff
        </Button>
        <Button
          className="button primary"
          isDisabled={preview === undefined || busy !== undefined}
          onPress={() => void send(false)}
        >
          Apply re-sync
        </Button>
      </div>
      {preview !== undefined && <ImportReportView report={preview.report} title="Re-sync diff" />}
    </section>
  );
};

/** One provider: its fields, tools, prompts, resources, re-sync and connections. */
export const ProviderPage = (props: { readonly id: string }) => {
  const { id } = props;
  const [provider, setProvider] = useState<{ record: Provider; etag: string | null }>();
  const [prompts, setPrompts] = useState<ReadonlyArray<Prompt>>([]);
  const [resources, setResources] = useState<ReadonlyArray<Resource>>([]);
  const [problem, setProblem] = useState<Problem>();
  const [saveProblem, setSaveProblem] = useState<Problem>();
  // A delete refused (409 FAILED_PRECONDITION names the servers that use it, 412 a stale version).
  const [actionProblem, setActionProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  const [generation, setGeneration] = useState(0);

  const load = useCallback(async () => {
    const [p, pr, rs] = await Promise.all([
      run(api.GET("/providers/{id}", { params: { path: { id } } })),
      run(api.GET("/providers/{id}/prompts", { params: { path: { id } } })),
      run(api.GET("/providers/{id}/resources", { params: { path: { id } } })),
    ]);
    if (!p.ok) return setProblem(p.problem);
    setProblem(undefined);
    setProvider({ record: p.data.provider, etag: p.etag });
    if (pr.ok) setPrompts(pr.data.prompts);
    if (rs.ok) setResources(rs.data.resources);
    setGeneration((g) => g + 1);
  }, [id]);

  useEffect(() => {
    void load();
  }, [load]);

  if (provider === undefined)
    return problem === undefined ? <Busy label="Loading the provider" /> : <ProblemBanner problem={problem} />;
  const p = provider.record;
  const ifMatch = provider.etag === null ? {} : { header: { "If-Match": provider.etag } };
  return (
    <section aria-labelledby="provider-title">
      <div className="heading">
        <h1 id="provider-title">{p.name}</h1>
        <div className="actions">
          <span className="muted">
            version {p.version} · secret prefix <code>{p.secretPrefix}</code>
          </span>
          <Button
            className="button danger"
            onPress={async () => {
              if (!window.confirm(`Delete the provider ${p.name}?`)) return;
              const out = await run(api.DELETE("/providers/{id}", { params: { path: { id }, ...ifMatch } }));
              if (out.ok) navigate("/providers");
              else setActionProblem(out.problem);
            }}
          >
            Delete provider
          </Button>
        </div>
      </div>
      <ProblemBanner
        problem={actionProblem}
        onReload={() => {
          setActionProblem(undefined);
          void load();
        }}
      />
      {actionProblem?.references !== undefined && actionProblem.references.length > 0 && (
        <p>
          Used by:{" "}
          {actionProblem.references.map((ref) => (
            <a key={ref} href={`#/servers/${ref}`} className="ref">
              {ref}
            </a>
          ))}
        </p>
      )}
      <Tabs>
        <TabList aria-label="Provider" className="tabs">
          <Tab id="tools">Tools ({p.tools.length})</Tab>
          <Tab id="settings">Settings</Tab>
          <Tab id="prompts">Prompts ({prompts.length})</Tab>
          <Tab id="resources">Resources ({resources.length})</Tab>
          <Tab id="resync">Re-sync</Tab>
        </TabList>
        <TabPanel id="tools">
          <ToolTable
            providerId={id}
            tools={p.tools}
            generation={generation}
            onChanged={() => void load()}
            onDelete={async (t) => {
              const out = await run(
                api.DELETE("/providers/{id}/tools/{toolID}", { params: { path: { id, toolID: t.id } } }),
              );
              if (out.ok) void load();
              else setActionProblem(out.problem);
            }}
          />
        </TabPanel>
        <TabPanel id="settings">
          <ProviderForm
            key={generation}
            initial={fieldsOf(p)}
            submitLabel="Save provider"
            problem={saveProblem}
            busy={busy}
            onReload={() => {
              setSaveProblem(undefined);
              void load();
            }}
            onSubmit={async (f) => {
              setBusy(true);
              const out = await run(
                api.PATCH("/providers/{id}", {
                  params: { path: { id }, ...ifMatch },
                  body: { provider: providerBody(f) },
                }),
              );
              setBusy(false);
              if (out.ok) {
                setSaveProblem(undefined);
                void load();
              } else setSaveProblem(out.problem);
            }}
          />
        </TabPanel>
        <TabPanel id="prompts">
          <PromptsSection providerId={id} prompts={prompts} onChanged={() => void load()} />
        </TabPanel>
        <TabPanel id="resources">
          <ResourcesSection providerId={id} resources={resources} onChanged={() => void load()} />
        </TabPanel>
        <TabPanel id="resync">
          <Resync provider={p} etag={provider.etag} onApplied={() => void load()} />
        </TabPanel>
      </Tabs>
      <ProviderConnections providerId={id} hasOAuth={p.oauth2Config !== undefined} />
    </section>
  );
};
