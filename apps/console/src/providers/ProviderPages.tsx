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
  // The provider's tool count: from its record, or from the tool table's unfiltered page, whichever is newer.
  const [toolCount, setToolCount] = useState<number>();

  const load = useCallback(async () => {
    const [p, pr, rs] = await Promise.all([
      run(api.GET("/providers/{id}", { params: { path: { id } } })),
      run(api.GET("/providers/{id}/prompts", { params: { path: { id } } })),
      run(api.GET("/providers/{id}/resources", { params: { path: { id } } })),
    ]);
    if (!p.ok) return setProblem(p.problem);
    setProblem(undefined);
    setProvider({ record: p.data.provider, etag: p.etag });
    setToolCount(p.data.provider.tools.length);
    if (pr.ok) setPrompts(pr.data.prompts);
    if (rs.ok) setResources(rs.data.resources);
  }, [id]);
  /** After a change: the provider again, and the tool page on screen (and open editors) from the store. */
  const reload = useCallback(() => {
    setGeneration((g) => g + 1);
    void load();
  }, [load]);

  useEffect(() => {
    void load();
  }, [load]);

  // The tool table does not wait for the provider: it fetches its own first page (issue 31), so the rows
  // paint while the provider's record (which carries every tool) is still on its way.
  const tools = (
    <ToolTable
      providerId={id}
      generation={generation}
      total={toolCount}
      onTotal={setToolCount}
      onChanged={reload}
      onDelete={async (t) => {
        const out = await run(api.DELETE("/providers/{id}/tools/{toolID}", { params: { path: { id, toolID: t.id } } }));
        if (out.ok) reload();
        else setActionProblem(out.problem);
      }}
    />
  );
  if (provider === undefined && problem !== undefined) return <ProblemBanner problem={problem} />;
  const p = provider?.record;
  const ifMatch = provider?.etag == null ? {} : { header: { "If-Match": provider.etag } };
  // One tree whether or not the provider has arrived, so the tool table keeps its state when it does.
  return (
    <section aria-labelledby="provider-title">
      <div className="heading">
        <h1 id="provider-title">{p?.name ?? "Provider"}</h1>
        {p !== undefined && (
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
        )}
      </div>
      {p === undefined && <Busy label="Loading the provider" />}
      <ProblemBanner
        problem={actionProblem}
        onReload={() => {
          setActionProblem(undefined);
          reload();
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
          <Tab id="tools">Tools ({toolCount ?? "…"})</Tab>
          {p !== undefined && (
            <>
              <Tab id="settings">Settings</Tab>
              <Tab id="prompts">Prompts ({prompts.length})</Tab>
              <Tab id="resources">Resources ({resources.length})</Tab>
              <Tab id="resync">Re-sync</Tab>
            </>
          )}
        </TabList>
        <TabPanel id="tools">{tools}</TabPanel>
        {p !== undefined && provider !== undefined && (
          <>
            <TabPanel id="settings">
              <ProviderForm
                key={generation}
                initial={fieldsOf(p)}
                submitLabel="Save provider"
                problem={saveProblem}
                busy={busy}
                onReload={() => {
                  setSaveProblem(undefined);
                  reload();
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
                    reload();
                  } else setSaveProblem(out.problem);
                }}
              />
            </TabPanel>
            <TabPanel id="prompts">
              <PromptsSection providerId={id} prompts={prompts} onChanged={reload} />
            </TabPanel>
            <TabPanel id="resources">
              <ResourcesSection providerId={id} resources={resources} onChanged={reload} />
            </TabPanel>
            <TabPanel id="resync">
              <Resync provider={p} etag={provider.etag} onApplied={reload} />
            </TabPanel>
          </>
        )}
      </Tabs>
      {p !== undefined && <ProviderConnections providerId={id} hasOAuth={p.oauth2Config !== undefined} />}
    </section>
  );
};
