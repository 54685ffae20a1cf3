import type { components } from "@mcpsm/client";
import { useState } from "react";
import { Button, FieldError, FileTrigger, Label, TextArea, TextField } from "react-aria-components";
import { api, run } from "../api/client.js";
import { fieldError, localProblem, type Problem } from "../api/problem.js";
import { navigate } from "../app/route.js";
import { Busy } from "../components/Busy.js";
import { CopyButton } from "../components/CopyButton.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { TextInput } from "../components/TextInput.js";

// Server export and import (docs/api-rules.md §16). The export is the service's document as it answers it,
// offered as a download (a data: URL: the page's CSP keeps every request on its own origin) and as text.
// The import sends a pasted or chosen document with dryRun=true first and shows the report; Apply sends the
// same document again without it. Its problems name paths in the document (`server.name`, `providers[0]…`).

type ExportDocument = components["schemas"]["ServerExportDocument"];
type ImportResult = components["schemas"]["ServerImportResult"];

/** A server's export: fetch the document, then download or copy it. */
export const ExportPanel = (props: { readonly serverId: string; readonly name: string }) => {
  const [text, setText] = useState<string>();
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  const fileName = `${props.name.replace(/[^A-Za-z0-9._-]+/g, "-")}.export.json`;
  return (
    <section aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      <p className="muted">
        A portable document of this server with its providers and chosen tools, prompts and resources: no id, no token,
        no secret. Import it here or on another service.
      </p>
      <Button
        className="button"
        isDisabled={busy}
        onPress={async () => {
          setBusy(true);
          const out = await run(api.GET("/servers/{id}/export", { params: { path: { id: props.serverId } } }));
          setBusy(false);
          if (!out.ok) return setProblem(out.problem);
          setProblem(undefined);
          setText(JSON.stringify(out.data, null, 2));
        }}
      >
        Export server
      </Button>
      <ProblemBanner problem={problem} />
      {busy && <Busy label="Exporting" />}
      {text !== undefined && (
        <>
          <p className="actions">
            <a
              className="button primary"
              href={`data:application/json;charset=utf-8,${encodeURIComponent(text)}`}
              download={fileName}
            >
              Download {fileName}
            </a>{" "}
            <CopyButton text={text} label="Copy the export document" />
          </p>
          <pre className="config" data-testid="export-document">
            {text}
          </pre>
        </>
      )}
    </section>
  );
};

/** The lists of an import report, one line each. */
const ImportReportView = (props: { readonly result: ImportResult; readonly title: string }) => {
  const r = props.result.report;
  const line = (label: string, matched: number, created: number, matchedWord: string) => (
    <li>
      {label}:{" "}
      <span className="badge">
        {matched} {matchedWord}
      </span>{" "}
      <span className="badge add">{created} created</span>
    </li>
  );
  return (
    <section className="report" aria-label={props.title}>
      <h2>{props.title}</h2>
      <p>
        Server <strong>{props.result.server.name}</strong>
      </p>
      <ul className="report-list">
        {line("Providers", r.providers.reused.length, r.providers.created.length, "reused")}
        {line("Tools", r.tools.matched.length, r.tools.created.length, "matched")}
        {line("Prompts", r.prompts.matched.length, r.prompts.created.length, "matched")}
        {line("Resources", r.resources.matched.length, r.resources.created.length, "matched")}
      </ul>
      <ul className="report-list">
        {r.providers.reused.map((p) => (
          <li key={`pr-${p.name}`}>
            <span className="badge">reused</span> provider <strong>{p.name}</strong> <code>{p.baseURL}</code>
          </li>
        ))}
        {r.providers.created.map((p) => (
          <li key={`pc-${p.name}`}>
            <span className="badge add">+</span> provider <strong>{p.name}</strong> <code>{p.baseURL}</code>
          </li>
        ))}
        {r.tools.matched
          .filter((t) => t.differs.length > 0)
          .map((t) => (
            <li key={`td-${t.provider}-${t.name}`}>
              <span className="badge change">~</span> {t.provider} / <strong>{t.name}</strong>: yours kept, differs in{" "}
              {t.differs.join(", ")}
            </li>
          ))}
        {r.tools.created.map((t) => (
          <li key={`tc-${t.provider}-${t.name}`}>
            <span className="badge add">+</span> {t.provider} / <strong>{t.name}</strong>{" "}
            <code>
              {t.method} {t.path}
            </code>
          </li>
        ))}
      </ul>
      {r.missingVariables.length > 0 && (
        <p>
          Missing variables:{" "}
          {r.missingVariables.map((v) => (
            <code key={v.name}>
              {v.name}
              {v.type === undefined ? "" : ` (${v.type})`}{" "}
            </code>
          ))}
        </p>
      )}
      {r.warnings.length > 0 && (
        <ul>
          {r.warnings.map((w) => (
            <li key={`${w.path}:${w.message}`}>
              <code>{w.path}</code>: {w.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
};

/** Import a server from an export document: a dry run (the report) first, then Apply creates it. */
export const ServerImportPage = () => {
  const [text, setText] = useState("");
  const [name, setName] = useState("");
  const [preview, setPreview] = useState<ImportResult>();
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState<string>();

  const send = async (dryRun: boolean) => {
    let document: ExportDocument;
    try {
      document = JSON.parse(text) as ExportDocument;
      if (typeof document !== "object" || document === null || Array.isArray(document))
        throw new Error("not an object");
    } catch (cause) {
      setPreview(undefined);
      return setProblem({
        ...localProblem("the document is not JSON"),
        title: "Bad document",
        errors: [{ path: "", message: `not a JSON object: ${cause instanceof Error ? cause.message : String(cause)}` }],
      });
    }
    const body: ExportDocument =
      name.trim() === "" ? document : { ...document, server: { ...document.server, name: name.trim() } };
    setBusy(dryRun ? "Checking the document" : "Importing");
    const out = await run(api.POST("/servers/import", { params: { query: { dryRun } }, body }));
    setBusy(undefined);
    if (!out.ok) {
      setPreview(undefined);
      return setProblem(out.problem);
    }
    setProblem(undefined);
    if (dryRun) setPreview(out.data);
    else navigate(`/servers/${out.data.server.id ?? ""}`);
  };

  const documentErrors = (problem?.errors ?? []).filter((e) => !e.path.startsWith("server.name"));
  // A name the tenant already has is a 409 without a path: it is about the server's name all the same.
  const nameTaken =
    problem?.code === "ALREADY_EXISTS" && /server named/.test(problem.detail) ? problem.detail : undefined;
  return (
    <section aria-labelledby="server-import-title">
      <h1 id="server-import-title">Import a server</h1>
      <div className="document-source">
        <TextField
          className="field"
          value={text}
          onChange={(t) => {
            setText(t);
            setPreview(undefined);
          }}
          isInvalid={documentErrors.length > 0}
          validationBehavior="aria"
        >
          <Label>Export document (JSON)</Label>
          <TextArea rows={12} className="mono" spellCheck={false} />
          <FieldError className="field-error">
            {documentErrors.map((e) => `${e.path === "" ? "document" : e.path}: ${e.message}`).join("; ")}
          </FieldError>
        </TextField>
        <FileTrigger
          acceptedFileTypes={[".json", "application/json"]}
          onSelect={(files) => {
            const file = files?.[0];
            if (file !== undefined)
              void file.text().then((t) => {
                setText(t);
                setPreview(undefined);
              });
          }}
        >
          <Button className="button">Choose a file…</Button>
        </FileTrigger>
      </div>
      <TextInput
        label="Server name (optional override)"
        value={name}
        onChange={(n) => {
          setName(n);
          setPreview(undefined);
        }}
        description="Importing next to the exported server needs another name"
        error={fieldError(problem, "server.name") ?? nameTaken}
      />
      <ProblemBanner problem={problem} />
      {busy !== undefined && <Busy label={busy} />}
      <div className="actions">
        <Button
          className="button"
          isDisabled={text.trim() === "" || busy !== undefined}
          onPress={() => void send(true)}
        >
          Preview server import
        </Button>
        <Button
          className="button primary"
          isDisabled={preview === undefined || busy !== undefined}
          onPress={() => void send(false)}
        >
          Apply server import
        </Button>
      </div>
      {preview !== undefined && <ImportReportView result={preview} title="Server import dry-run report" />}
    </section>
  );
};
