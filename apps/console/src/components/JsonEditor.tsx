import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { json, jsonParseLinter } from "@codemirror/lang-json";
import { bracketMatching, foldGutter, syntaxHighlighting, defaultHighlightStyle } from "@codemirror/language";
import { type Diagnostic, linter, lintGutter } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers } from "@codemirror/view";
import { useEffect, useId, useRef } from "react";

// A real JSON editor (CodeMirror 6): syntax highlighting, JSON syntax lint and, for JSON Schemas, the
// structural rules the service enforces (an object; path and query schemas of type "object"). The service
// remains the judge: its problem is shown under the editor by the caller. Tab indents; Escape then Tab
// leaves the editor (CodeMirror's own accessible tab handling).

/** What a schema editor checks beyond JSON syntax. */
export type SchemaRule = "json" | "schema" | "object-schema";

const schemaLinter =
  (rule: SchemaRule) =>
  (view: EditorView): Array<Diagnostic> => {
    const text = view.state.doc.toString();
    if (rule === "json" || text.trim() === "") return [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return []; // the syntax linter reports it
    }
    const whole = { from: 0, to: text.length };
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return [{ ...whole, severity: "error", message: "a JSON Schema is an object" }];
    const type = (value as { type?: unknown }).type;
    if (rule === "object-schema" && type !== undefined && type !== "object")
      return [{ ...whole, severity: "error", message: 'path and query schemas have "type": "object"' }];
    return [];
  };

/** The page's style nonce (the service sets it per answer; the CSP admits style elements carrying it). */
const styleNonce = (): string => document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce ?? "";

/** Whether `text` is valid under `rule` (what the editor's lint says, for disabling Save). */
export const jsonProblem = (text: string, rule: SchemaRule): string | undefined => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return error instanceof Error ? error.message : "not JSON";
  }
  if (rule === "json") return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "a JSON Schema is an object";
  const type = (value as { type?: unknown }).type;
  if (rule === "object-schema" && type !== undefined && type !== "object")
    return 'path and query schemas have "type": "object"';
  return undefined;
};

/** A labelled CodeMirror JSON editor; `error` (the service's message for this field) is shown under it. */
export const JsonEditor = (props: {
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly rule?: SchemaRule;
  readonly error?: string | undefined;
  readonly testId?: string;
}) => {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  const labelId = useId();
  const errorId = useId();
  const rule = props.rule ?? "json";

  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is created once; value changes sync below
  useEffect(() => {
    if (host.current === null) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: props.value,
        extensions: [
          lineNumbers(),
          foldGutter(),
          history(),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle),
          json(),
          linter(jsonParseLinter(), { delay: 200 }),
          linter(schemaLinter(rule), { delay: 200 }),
          lintGutter(),
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          EditorView.cspNonce.of(styleNonce()),
          EditorView.contentAttributes.of({
            "aria-labelledby": labelId,
            "aria-describedby": errorId,
            "data-testid": props.testId ?? "",
          }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) onChange.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => editor.destroy();
  }, []);

  // A value set from outside (a reload) replaces the document.
  useEffect(() => {
    const editor = view.current;
    if (editor !== null && editor.state.doc.toString() !== props.value)
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: props.value } });
  }, [props.value]);

  const local = jsonProblem(props.value, rule);
  return (
    <div className="field json-field" data-invalid={props.error !== undefined || local !== undefined}>
      <span id={labelId} className="label">
        {props.label}
      </span>
      <div ref={host} className="json-editor" />
      <div id={errorId} className="field-error" role={props.error === undefined ? undefined : "alert"}>
        {props.error ?? (local === undefined ? "" : local)}
      </div>
    </div>
  );
};
