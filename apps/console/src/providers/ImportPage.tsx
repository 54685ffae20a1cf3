import type { components } from "@mcpsm/client";
import { useState } from "react";
import { Button } from "react-aria-components";
import { api, run } from "../api/client.js";
import { fieldError, type Problem } from "../api/problem.js";
import { navigate } from "../app/route.js";
import { Busy } from "../components/Busy.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { TextInput } from "../components/TextInput.js";
import { DocumentSource } from "./DocumentSource.js";
import { ImportReportView } from "./ImportReport.js";

type Result = components["schemas"]["ImportResult"];

/** Import an OpenAPI description: a dry run first (the report), then Apply stores it. */
export const ImportPage = () => {
  const [text, setText] = useState("");
  const [url, setUrl] = useState("");
  const [name, setName] = useState("");
  const [baseURL, setBaseURL] = useState("");
  const [preview, setPreview] = useState<Result>();
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState<string>();

  const send = async (dryRun: boolean) => {
    setBusy(dryRun ? "Reading the description" : "Importing");
    const provider = { ...(name === "" ? {} : { name }), ...(baseURL === "" ? {} : { baseURL }) };
    const outcome = await run(
      api.POST("/providers/import", {
        body: {
          import: {
            ...(url.trim() === "" ? { document: text } : { url: url.trim() }),
            dryRun,
            ...(Object.keys(provider).length === 0 ? {} : { provider }),
          },
        },
      }),
    );
    setBusy(undefined);
    if (!outcome.ok) {
      setProblem(outcome.problem);
      setPreview(undefined);
      return;
    }
    setProblem(undefined);
    if (dryRun) setPreview(outcome.data);
    else navigate(`/providers/${outcome.data.provider.id}`);
  };

  const placed = ["import.document", "import.url", "import.provider.name", "import.provider.baseURL"];
  return (
    <section aria-labelledby="import-title">
      <h1 id="import-title">Import an OpenAPI description</h1>
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
      <div className="row">
        <TextInput
          label="Name (optional override)"
          value={name}
          onChange={setName}
          error={fieldError(problem, "import.provider.name")}
        />
        <TextInput
          label="Base URL (optional override)"
          type="url"
          value={baseURL}
          onChange={setBaseURL}
          error={fieldError(problem, "import.provider.baseURL")}
        />
      </div>
      <ProblemBanner
        problem={problem}
        unplaced={(problem?.errors ?? []).filter((e) => !placed.some((p) => e.path.startsWith(p)))}
      />
      {busy !== undefined && <Busy label={busy} />}
      <div className="actions">
        <Button
          className="button"
          isDisabled={(text.trim() === "" && url.trim() === "") || busy !== undefined}
          onPress={() => void send(true)}
        >
          Preview import
        </Button>
        <Button
          className="button primary"
          isDisabled={preview === undefined || busy !== undefined}
          onPress={() => void send(false)}
        >
          Apply import
        </Button>
      </div>
      {preview !== undefined && (
        <>
          <p>
            Provider <strong>{preview.provider.name}</strong> at <code>{preview.provider.baseURL}</code>
          </p>
          <ImportReportView report={preview.report} title="Dry-run report" />
        </>
      )}
    </section>
  );
};
