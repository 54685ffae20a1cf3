import type { Provider } from "@mcpsm/client";
import { useDeferredValue, useMemo, useState } from "react";
import { Button, Checkbox, Input, Label, SearchField } from "react-aria-components";

// The tool picker of the Compose form, built for real APIs (GitHub: 623+ tools, a provider of 5,000): every
// provider is a row that expands to its tools; a search lists the matching tools of every provider at once
// (expanded), "Select matching" adds exactly those and "Clear" empties the choice, so four tools out of
// hundreds take a search and one press. Each provider shows at most PAGE tools at a time ("Show more"), so
// the page stays small whatever the provider's size. A tool is shown as its name with its title beside it.

type Chosen = ReadonlyMap<string, ReadonlySet<string>>;
type Tool = Provider["tools"][number];

const PAGE = 50;

/** Whether every word of `query` occurs in one of `texts` (ignoring case); an empty query matches all. */
const matcher = (query: string) => {
  const words = query
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "");
  return (...texts: ReadonlyArray<string>) => {
    if (words.length === 0) return true;
    const haystack = texts.join("\n").toLowerCase();
    return words.every((w) => haystack.includes(w));
  };
};

const ProviderRow = (props: {
  readonly provider: Provider;
  readonly tools: ReadonlyArray<Tool>;
  readonly searching: boolean;
  readonly picked: ReadonlySet<string> | undefined;
  readonly onProvider: (on: boolean) => void;
  readonly onTool: (toolId: string, on: boolean) => void;
  readonly error: string | undefined;
}) => {
  const { provider, tools, picked } = props;
  const [open, setOpen] = useState(false);
  const [limit, setLimit] = useState(PAGE);
  const expanded = open || props.searching;
  const listId = `tools-of-${provider.id}`;
  const count = picked?.size ?? 0;
  return (
    <li className="provider-pick">
      <div className="provider-pick-head">
        <Button
          className="button small expander"
          aria-expanded={expanded}
          aria-controls={listId}
          aria-label={`${expanded ? "Hide" : "Show"} the tools of ${provider.name}`}
          onPress={() => setOpen(!expanded)}
          isDisabled={props.searching}
        >
          <span aria-hidden="true">{expanded ? "▾" : "▸"}</span>
        </Button>
        <Checkbox
          className="checkbox"
          isSelected={picked !== undefined && count === provider.tools.length && count > 0}
          isIndeterminate={picked !== undefined && count < provider.tools.length}
          onChange={props.onProvider}
          aria-label={`All tools of ${provider.name}`}
        >
          <span className="box" aria-hidden="true" />
          <strong>{provider.name}</strong>
        </Checkbox>
        <span className="muted">
          {count} of {provider.tools.length} tools
          {props.searching ? ` · ${tools.length} match` : ""}
        </span>
      </div>
      {props.error !== undefined && (
        <div className="field-error" role="alert">
          {props.error}
        </div>
      )}
      {expanded && (
        <ul className="tool-picks" id={listId}>
          {tools.slice(0, limit).map((t) => (
            <li key={t.id}>
              <Checkbox
                className="checkbox"
                isSelected={picked?.has(t.id) ?? false}
                onChange={(on) => props.onTool(t.id, on)}
              >
                <span className="box" aria-hidden="true" />
                <span className="tool-name">{t.name}</span>
                {t.title !== "" && <span className="tool-title"> {t.title}</span>}{" "}
                <code className="muted">
                  {t.method} {t.path}
                </code>
              </Checkbox>
            </li>
          ))}
          {tools.length > limit && (
            <li>
              <Button className="button small" onPress={() => setLimit((l) => l + PAGE * 4)}>
                Show more ({tools.length - limit} more)
              </Button>
            </li>
          )}
        </ul>
      )}
    </li>
  );
};

/** Providers and their tools to choose from; `onChange` receives the whole new choice. */
export const ToolPicker = (props: {
  readonly providers: ReadonlyArray<Provider> | undefined;
  readonly chosen: Chosen;
  readonly onChange: (next: Chosen) => void;
  readonly providerError: (providerId: string) => string | undefined;
}) => {
  const { chosen } = props;
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query);
  const searching = deferred.trim() !== "";
  const shown = useMemo(() => {
    const match = matcher(deferred);
    return (props.providers ?? [])
      .map((p) => {
        const whole = match(p.name, p.baseURL);
        return {
          provider: p,
          tools: whole ? p.tools : p.tools.filter((t) => match(t.name, t.title, t.description, t.path)),
        };
      })
      .filter(({ provider, tools }) => tools.length > 0 || match(provider.name, provider.baseURL));
  }, [props.providers, deferred]);
  const matching = shown.reduce((n, x) => n + x.tools.length, 0);
  const toolCount = [...chosen.values()].reduce((n, set) => n + set.size, 0);

  const withTools = (providerId: string, change: (tools: Set<string>) => void) => {
    const next = new Map(chosen);
    const tools = new Set(next.get(providerId) ?? []);
    change(tools);
    next.set(providerId, tools);
    return next;
  };
  const onProvider = (p: Provider, on: boolean) => {
    const next = new Map(chosen);
    if (on) next.set(p.id, new Set(p.tools.map((t) => t.id)));
    else next.delete(p.id);
    props.onChange(next);
  };
  const onTool = (p: Provider, toolId: string, on: boolean) =>
    props.onChange(withTools(p.id, (tools) => (on ? tools.add(toolId) : tools.delete(toolId))));
  const selectMatching = () => {
    const next = new Map(chosen);
    for (const { provider, tools } of shown) {
      if (tools.length === 0) continue;
      next.set(provider.id, new Set([...(next.get(provider.id) ?? []), ...tools.map((t) => t.id)]));
    }
    props.onChange(next);
  };

  return (
    <fieldset className="picker">
      <legend>
        Tools:{" "}
        <span aria-live="polite" data-testid="tool-count">
          {toolCount} selected from {chosen.size} provider{chosen.size === 1 ? "" : "s"}
        </span>
      </legend>
      <div className="picker-bar">
        <SearchField className="field" value={query} onChange={setQuery} aria-label="Search providers and tools">
          <Label>Search providers and tools</Label>
          <Input placeholder="name, title, description or path (all words)" />
        </SearchField>
        <div className="actions">
          <Button className="button" onPress={selectMatching} isDisabled={!searching || matching === 0}>
            Select {searching ? `the ${matching} matching` : "matching"}
          </Button>
          <Button className="button" onPress={() => props.onChange(new Map())} isDisabled={chosen.size === 0}>
            Clear
          </Button>
        </div>
      </div>
      {props.providers !== undefined && (
        <p className="muted" aria-live="polite">
          {searching ? `${matching} tools match in ` : ""}
          {shown.length} provider{shown.length === 1 ? "" : "s"}
        </p>
      )}
      <ul className="provider-picks">
        {shown.map(({ provider, tools }) => (
          <ProviderRow
            key={provider.id}
            provider={provider}
            tools={tools}
            searching={searching}
            picked={chosen.get(provider.id)}
            onProvider={(on) => onProvider(provider, on)}
            onTool={(toolId, on) => onTool(provider, toolId, on)}
            error={props.providerError(provider.id)}
          />
        ))}
      </ul>
    </fieldset>
  );
};
