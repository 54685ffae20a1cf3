import type { ProviderTool } from "@mcpsm/client";
import { useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { Button, Input, Label, SearchField } from "react-aria-components";
import { Markdown } from "../markdown/Markdown.js";
import { ToolEditor } from "./ToolEditor.js";

// A provider's tools at any size (GitHub: 845 operations; a provider may hold 5,000): a filter over name,
// title, description and path (every word must occur), PAGE rows at a time with a pager, a fixed layout
// (the description column keeps its width, the actions stay on screen), descriptions as sanitised Markdown
// clamped to three lines. "Edit" opens the editor in place, in a row under the tool, scrolled into view
// with focus on its first field; "New tool" opens it above the table.

const PAGE = 50;

const matcher = (query: string) => {
  const words = query
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "");
  return (t: ProviderTool) => {
    if (words.length === 0) return true;
    const haystack = `${t.name}\n${t.title}\n${t.description}\n${t.method} ${t.path}`.toLowerCase();
    return words.every((w) => haystack.includes(w));
  };
};

/** The editor's container: scrolled into view and its first field focused when it opens. */
const InPlace = (props: { readonly children: React.ReactNode }) => {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.scrollIntoView({ block: "start" });
    ref.current?.querySelector<HTMLElement>("input, textarea")?.focus({ preventScroll: true });
  }, []);
  return (
    <div ref={ref} className="in-place">
      {props.children}
    </div>
  );
};

export const ToolTable = (props: {
  readonly providerId: string;
  readonly tools: ReadonlyArray<ProviderTool>;
  /** Bumped on every reload, so an open editor starts from the stored tool. */
  readonly generation: number;
  readonly onChanged: () => void;
  readonly onDelete: (tool: ProviderTool) => void;
}) => {
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query);
  const [page, setPage] = useState(0);
  const [editing, setEditing] = useState<string>();
  const matching = useMemo(() => props.tools.filter(matcher(deferred)), [props.tools, deferred]);
  const pages = Math.max(1, Math.ceil(matching.length / PAGE));
  const current = Math.min(page, pages - 1);
  const rows = matching.slice(current * PAGE, current * PAGE + PAGE);
  const editor = (tool: ProviderTool | undefined) => (
    <InPlace>
      <ToolEditor
        key={`${tool?.id ?? "new"}-${props.generation}`}
        providerId={props.providerId}
        tool={tool}
        onSaved={() => {
          setEditing(undefined);
          props.onChanged();
        }}
        onCancel={() => setEditing(undefined)}
      />
    </InPlace>
  );
  const first = matching.length === 0 ? 0 : current * PAGE + 1;
  return (
    <div className="tool-table">
      <div className="picker-bar">
        <SearchField
          className="field"
          value={query}
          onChange={(q) => {
            setQuery(q);
            setPage(0);
          }}
          aria-label="Filter tools"
        >
          <Label>Filter tools</Label>
          <Input placeholder="name, title, description or path (all words)" />
        </SearchField>
        <div className="actions">
          <Button className="button" onPress={() => setEditing("new")} isDisabled={editing === "new"}>
            New tool
          </Button>
        </div>
      </div>
      {editing === "new" && editor(undefined)}
      <nav className="pager" aria-label="Tool pages">
        <span aria-live="polite" data-testid="tool-range">
          {first}–{current * PAGE + rows.length} of {matching.length}
          {matching.length === props.tools.length ? "" : ` matching (${props.tools.length} tools)`}
        </span>
        <Button className="button small" isDisabled={current === 0} onPress={() => setPage(current - 1)}>
          Previous page
        </Button>
        <Button className="button small" isDisabled={current >= pages - 1} onPress={() => setPage(current + 1)}>
          Next page
        </Button>
      </nav>
      <table className="table fixed">
        <colgroup>
          <col className="col-tool" />
          <col className="col-request" />
          <col className="col-description" />
          <col className="col-actions" />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Request</th>
            <th scope="col">Description</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <ToolRow
              key={t.id}
              tool={t}
              editing={editing === t.id}
              onEdit={() => setEditing(editing === t.id ? undefined : t.id)}
              onDelete={() => props.onDelete(t)}
              editor={editing === t.id ? editor(t) : null}
            />
          ))}
        </tbody>
      </table>
      {matching.length === 0 && <p className="muted">No tool matches.</p>}
    </div>
  );
};

const ToolRow = (props: {
  readonly tool: ProviderTool;
  readonly editing: boolean;
  readonly onEdit: () => void;
  readonly onDelete: () => void;
  readonly editor: React.ReactNode;
}) => {
  const t = props.tool;
  return (
    <>
      <tr>
        <td data-label="Tool">
          <strong className="tool-name">{t.name}</strong>
          {t.title !== "" && <div className="muted">{t.title}</div>}
        </td>
        <td data-label="Request">
          <code className="request">
            {t.method} {t.path}
          </code>
        </td>
        <td data-label="Description">
          <Markdown text={t.description} className="clamp" />
        </td>
        <td data-label="Actions" className="row-actions">
          <Button className="button small" aria-expanded={props.editing} onPress={props.onEdit}>
            Edit <span className="sr-only">{t.name}</span>
          </Button>
          <Button className="button small danger" onPress={props.onDelete}>
            Delete <span className="sr-only">{t.name}</span>
          </Button>
        </td>
      </tr>
      {props.editing && (
        <tr className="editor-row">
          <td colSpan={4}>{props.editor}</td>
        </tr>
      )}
    </>
  );
};
