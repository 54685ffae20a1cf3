import type { ProviderTool, ToolCreate } from "@mcpsm/client";
import { useState } from "react";
import { Button, Form, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from "react-aria-components";
import { api, run } from "../api/client.js";
import { fieldError, type Problem } from "../api/problem.js";
import { JsonEditor, jsonProblem } from "../components/JsonEditor.js";
import { useProblemFixes } from "../api/problem-fixes.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { TextInput } from "../components/TextInput.js";
import { type ResponseFilter, ResponseFilterEditor } from "./ResponseFilterEditor.js";

// One tool of a provider: its request line and the three JSON Schemas of its arguments, each in a JSON
// editor with validation; the service's errors land under `tool.<field>`.

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
const pretty = (value: unknown) => JSON.stringify(value, null, 2);

export const ToolEditor = (props: {
  readonly providerId: string;
  readonly tool: ProviderTool | undefined;
  readonly onSaved: () => void;
  readonly onCancel: () => void;
}) => {
  const t = props.tool;
  const [name, setName] = useState(t?.name ?? "");
  const [title, setTitle] = useState(t?.title ?? "");
  const [description, setDescription] = useState(t?.description ?? "");
  const [method, setMethod] = useState<ToolCreate["method"]>(t?.method ?? "GET");
  const [path, setPath] = useState(t?.path ?? "/");
  const [pathSchema, setPathSchema] = useState(pretty(t?.pathArgsJSONSchema ?? { type: "object", properties: {} }));
  const [querySchema, setQuerySchema] = useState(pretty(t?.queryArgsJSONSchema ?? { type: "object", properties: {} }));
  const [bodySchema, setBodySchema] = useState(pretty(t?.reqBodyJSONSchema ?? {}));
  const [headers, setHeaders] = useState(pretty(t?.headers ?? []));
  const [responseFilter, setResponseFilter] = useState<ResponseFilter | null>(t?.responseFilter ?? null);
  const [answered, setProblem] = useState<Problem>();
  const { problem, edited } = useProblemFixes(answered);
  const [busy, setBusy] = useState(false);
  /** A setter that also retires the field's error once it is edited. */
  const editing =
    <T,>(field: string, setter: (value: T) => void) =>
    (value: T) => {
      edited(`tool.${field}`);
      setter(value);
    };

  const invalid =
    jsonProblem(pathSchema, "object-schema") ??
    jsonProblem(querySchema, "object-schema") ??
    jsonProblem(bodySchema, "schema") ??
    jsonProblem(headers, "json");

  const save = async () => {
    setBusy(true);
    const tool: ToolCreate = {
      name,
      title,
      description,
      method,
      path,
      pathArgsJSONSchema: JSON.parse(pathSchema),
      queryArgsJSONSchema: JSON.parse(querySchema),
      reqBodyJSONSchema: JSON.parse(bodySchema),
      headers: JSON.parse(headers),
      responseFilter,
    };
    const outcome =
      t === undefined
        ? await run(api.POST("/providers/{id}/tools", { params: { path: { id: props.providerId } }, body: { tool } }))
        : await run(
            api.PATCH("/providers/{id}/tools/{toolID}", {
              params: { path: { id: props.providerId, toolID: t.id } },
              body: { tool },
            }),
          );
    setBusy(false);
    if (outcome.ok) props.onSaved();
    else setProblem(outcome.problem);
  };
  const err = (field: string) => fieldError(problem, `tool.${field}`);
  const placed = [
    "name",
    "title",
    "description",
    "method",
    "path",
    "pathArgsJSONSchema",
    "queryArgsJSONSchema",
    "reqBodyJSONSchema",
    "headers",
    "responseFilter",
  ];
  return (
    <Form
      className="form tool-editor"
      aria-label={t === undefined ? "New tool" : `Tool ${t.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h3>{t === undefined ? "New tool" : `Edit ${t.name}`}</h3>
      <div className="row">
        <TextInput
          label="Tool name"
          value={name}
          onChange={editing("name", setName)}
          error={err("name")}
          isRequired
          description="camelCase, 1–20 characters"
        />
        <TextInput label="Title" value={title} onChange={editing("title", setTitle)} error={err("title")} />
      </div>
      <div className="row">
        <Select
          className="field"
          selectedKey={method}
          onSelectionChange={(k) => editing("method", setMethod)(k as ToolCreate["method"])}
        >
          <Label>Method</Label>
          <Button className="button select">
            <SelectValue />
          </Button>
          <Popover>
            <ListBox className="listbox">
              {METHODS.map((m) => (
                <ListBoxItem key={m} id={m}>
                  {m}
                </ListBoxItem>
              ))}
            </ListBox>
          </Popover>
        </Select>
        <TextInput
          label="Path"
          value={path}
          onChange={editing("path", setPath)}
          error={err("path")}
          isRequired
          description="e.g. /pets/{petId}"
        />
      </div>
      <TextInput
        label="Tool description"
        multiline
        value={description}
        onChange={editing("description", setDescription)}
        error={err("description")}
      />
      <JsonEditor
        label="Path arguments schema"
        value={pathSchema}
        onChange={editing("pathArgsJSONSchema", setPathSchema)}
        rule="object-schema"
        error={err("pathArgsJSONSchema")}
        testId="pathArgsJSONSchema"
      />
      <JsonEditor
        label="Query arguments schema"
        value={querySchema}
        onChange={editing("queryArgsJSONSchema", setQuerySchema)}
        rule="object-schema"
        error={err("queryArgsJSONSchema")}
        testId="queryArgsJSONSchema"
      />
      <JsonEditor
        label="Request body schema"
        value={bodySchema}
        onChange={editing("reqBodyJSONSchema", setBodySchema)}
        rule="schema"
        error={err("reqBodyJSONSchema")}
        testId="reqBodyJSONSchema"
      />
      <JsonEditor
        label="Headers ([{key, value}], values may hold ${NAME})"
        value={headers}
        onChange={editing("headers", setHeaders)}
        error={err("headers")}
        testId="headers"
      />
      <ResponseFilterEditor
        providerId={props.providerId}
        toolId={t?.id}
        value={responseFilter}
        onChange={editing("responseFilter", setResponseFilter)}
        error={err("responseFilter.expression") ?? err("responseFilter.language")}
      />
      <ProblemBanner
        problem={problem}
        unplaced={(problem?.errors ?? []).filter((e) => !placed.some((p) => e.path.startsWith(`tool.${p}`)))}
      />
      <div className="actions">
        <Button type="submit" className="button primary" isDisabled={busy || invalid !== undefined}>
          Save tool
        </Button>
        <Button className="button" onPress={props.onCancel}>
          Cancel
        </Button>
      </div>
    </Form>
  );
};
