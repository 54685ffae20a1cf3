import type { ProviderTool } from "@mcpsm/client";
import { useEffect, useRef, useState } from "react";
import { Label, Radio, RadioGroup } from "react-aria-components";
import { api, run } from "../api/client.js";
import { fieldError, type Problem } from "../api/problem.js";
import { JsonEditor, jsonProblem } from "../components/JsonEditor.js";
import { TextInput } from "../components/TextInput.js";

// A tool's response filter (docs/api-rules.md §19): its language and expression, and a live preview of the
// filter on a sample answer through POST /providers/{id}/tools/{toolID}/shape-preview (nothing is stored
// until the tool is saved), with the tokens before and after and what a cut to the token limit left out.

export type ResponseFilter = NonNullable<ProviderTool["responseFilter"]>;
type Language = ResponseFilter["language"] | "none";

/** Texts over this many characters are counted by an estimate on the service (64 KiB). */
const ESTIMATED_OVER_CHARS = 64 * 1024;
/** The preview waits this long after the last keystroke. */
const DEBOUNCE_MS = 400;

const PLACEHOLDERS: Record<ResponseFilter["language"], string> = {
  jmespath: "e.g. data[*].{id: id, name: name}",
  jq: "e.g. .data | map({id, name})",
};

type Preview = {
  readonly result: unknown;
  readonly tokens: { readonly before: number; readonly after: number };
  readonly cut: string;
};

const number = (n: number) => n.toLocaleString("en-US");

/** "1,234 → 56 tokens (−95%)", with "≈" where the service estimated a count. */
const tokenLine = (preview: Preview, sampleChars: number, resultChars: number) => {
  const { before, after } = preview.tokens;
  const approx = (chars: number) => (chars > ESTIMATED_OVER_CHARS ? "≈" : "");
  const change = before === 0 ? 0 : Math.round((100 * (after - before)) / before);
  return `${approx(sampleChars)}${number(before)} → ${approx(resultChars)}${number(after)} tokens (${change > 0 ? "+" : change < 0 ? "−" : "±"}${Math.abs(change)}%)`;
};

export const ResponseFilterEditor = (props: {
  readonly providerId: string;
  /** The stored tool; the preview needs its id (a new tool is previewed once saved). */
  readonly toolId: string | undefined;
  readonly value: ResponseFilter | null;
  readonly onChange: (value: ResponseFilter | null) => void;
  /** The service's error at `tool.responseFilter.expression` on save. */
  readonly error: string | undefined;
}) => {
  const [language, setLanguage] = useState<Language>(props.value?.language ?? "none");
  const [expression, setExpression] = useState(props.value?.expression ?? "");
  const [sample, setSample] = useState("{}");
  const [preview, setPreview] = useState<Preview>();
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  const latest = useRef(0);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;

  useEffect(() => {
    onChange.current(language === "none" ? null : { language, expression });
  }, [language, expression]);

  const sampleInvalid = jsonProblem(sample, "json");
  const { toolId, providerId } = props;
  useEffect(() => {
    if (toolId === undefined || sampleInvalid !== undefined) return;
    if (language !== "none" && expression.trim() === "") return;
    const ask = ++latest.current;
    const timer = setTimeout(async () => {
      setBusy(true);
      const outcome = await run(
        api.POST("/providers/{id}/tools/{toolID}/shape-preview", {
          params: { path: { id: providerId, toolID: toolId } },
          body: { sample: JSON.parse(sample), responseFilter: language === "none" ? null : { language, expression } },
        }),
      );
      // Only the answer to the latest edit is shown.
      if (ask !== latest.current) return;
      setBusy(false);
      if (outcome.ok) {
        setPreview(outcome.data);
        setProblem(undefined);
      } else {
        setPreview(undefined);
        setProblem(outcome.problem);
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [toolId, providerId, language, expression, sample, sampleInvalid]);

  const previewError =
    fieldError(problem, "responseFilter.expression") ?? fieldError(problem, "responseFilter.language");
  const otherError = problem !== undefined && previewError === undefined ? problem.detail : undefined;
  const resultText = preview === undefined ? "" : JSON.stringify(preview.result, null, 2);
  return (
    <fieldset className="response-filter" aria-label="Response filter">
      <legend>Response filter</legend>
      <p className="muted">
        Applied to the upstream's JSON answer before a model reads it; the tool's outputSchema follows it.
      </p>
      <RadioGroup
        className="field"
        orientation="horizontal"
        value={language}
        onChange={(v) => setLanguage(v as Language)}
      >
        <Label>Filter language</Label>
        <div className="inline">
          <Radio className="radio" value="none">
            None
          </Radio>
          <Radio className="radio" value="jmespath">
            JMESPath
          </Radio>
          <Radio className="radio" value="jq">
            jq
          </Radio>
        </div>
      </RadioGroup>
      {language !== "none" && (
        <TextInput
          label="Filter expression"
          value={expression}
          onChange={setExpression}
          error={previewError ?? props.error}
          description={PLACEHOLDERS[language]}
        />
      )}
      <JsonEditor
        label="Sample answer (JSON, as the upstream sends it)"
        value={sample}
        onChange={setSample}
        error={fieldError(problem, "sample")}
        testId="shape-sample"
      />
      {toolId === undefined ? (
        <p className="muted">Save the tool to preview its filter on a sample.</p>
      ) : (
        <div className="shape-preview" aria-live="polite" aria-busy={busy}>
          {otherError !== undefined && (
            <p className="field-error" role="alert">
              {otherError}
            </p>
          )}
          {preview !== undefined && (
            <>
              <p data-testid="shape-tokens" className="token-line">
                <strong>Tokens:</strong> {tokenLine(preview, sample.length, JSON.stringify(preview.result).length)}
              </p>
              {preview.cut !== "" && (
                <p className="muted" data-testid="shape-cut">
                  {preview.cut}
                </p>
              )}
              <pre className="code shape-result" data-testid="shape-result">
                {resultText}
              </pre>
            </>
          )}
        </div>
      )}
    </fieldset>
  );
};
