import type { ProviderTool } from "@mcpsm/client";
import { useEffect, useRef, useState } from "react";
import { Button, Input, Label, SearchField } from "react-aria-components";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { Markdown } from "../markdown/Markdown.js";
import { ToolEditor } from "./ToolEditor.js";
import { PAGE_SIZE, useToolPages } from "./use-tool-pages.js";

// A provider's tools at any size (GitHub: 845 operations; a provider may hold 5,000), paged by the service
// (use-tool-pages.ts): a filter over name, title, description, method and path (one text, ignoring case),
// PAGE_SIZE rows at a time with a pager, a fixed layout (the description column keeps its width, the
// actions stay on screen), descriptions as sanitised Markdown clamped to three lines. "Edit" opens the
// editor in place, in a row under the tool, scrolled into view with focus on its first field; "New tool"
// opens it above the table.

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
  /** Bumped on every reload, so an open editor starts from the stored tool and the page is fetched again. */
  readonly generation: number;
  /** How many tools the provider has, when known (shown beside a filtered count). */
  readonly total: number | undefined;
  /** Told the provider's tool count whenever an unfiltered page tells it. */
  readonly onTotal: (count: number) => void;
  readonly onChanged: () => void;
  readonly onDelete: (tool: ProviderTool) => void;
}) => {
  const pages = useToolPages(props.providerId, props.generation);
  const [editing, setEditing] = useState<string>();
  const { answer, filter } = pages;
  const { onTotal } = props;
  useEffect(() => {
    if (answer !== undefined && filter === "") onTotal(answer.data.matchCount);
  }, [answer, filter, onTotal]);
  const rows = answer?.data.tools ?? [];
  const matchCount = answer?.data.matchCount ?? 0;
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
  const first = rows.length === 0 ? 0 : (answer?.page ?? 0) * PAGE_SIZE + 1;
  return (
    <div className="tool-table">
      <div className="picker-bar">
        <SearchField className="field" value={pages.query} onChange={pages.setQuery} aria-label="Filter tools">
          <Label>Filter tools</Label>
          <Input placeholder="name, title, description, method or path" />
        </SearchField>
        <div className="actions">
          <Button className="button" onPress={() => setEditing("new")} isDisabled={editing === "new"}>
            New tool
          </Button>
        </div>
      </div>
      {editing === "new" && editor(undefined)}
      <ProblemBanner problem={pages.problem} />
      <nav className="pager" aria-label="Tool pages">
        <span aria-live="polite" data-testid="tool-range">
          {answer === undefined
            ? "Loading the tools…"
            : `${first}–${first === 0 ? 0 : first + rows.length - 1} of ${matchCount}${
                filter === "" || props.total === undefined || props.total === matchCount
                  ? ""
                  : ` matching (${props.total} tools)`
              }`}
        </span>
        <Button className="button small" isDisabled={!pages.hasPrevious} onPress={pages.previous}>
          Previous page
        </Button>
        <Button className="button small" isDisabled={!pages.hasNext} onPress={pages.next}>
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
      {answer !== undefined && rows.length === 0 && <p className="muted">No tool matches.</p>}
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
