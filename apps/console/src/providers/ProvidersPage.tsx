import type { Provider } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import { Button, Form, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from "react-aria-components";
import { api, run } from "../api/client.js";
import type { Problem } from "../api/problem.js";
import { fieldError } from "../api/problem.js";
import { Busy } from "../components/Busy.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { TextInput } from "../components/TextInput.js";

// The provider list with the contract's filters and paging (docs/api-rules.md §11): nameContains,
// baseURLContains, visibility, apiType, limit; pages are followed by nextToken, and Back replays the
// earlier tokens.

const PAGE_SIZE = 20;

type Filters = { nameContains: string; baseURLContains: string; visibility: "" | "INTERNAL" | "PUBLIC" };

export const ProvidersPage = () => {
  const [filters, setFilters] = useState<Filters>({ nameContains: "", baseURLContains: "", visibility: "" });
  const [tokens, setTokens] = useState<ReadonlyArray<string>>([""]);
  const [page, setPage] = useState<{ providers: ReadonlyArray<Provider>; matchCount: number; nextToken: string }>();
  const [problem, setProblem] = useState<Problem>();
  const [loading, setLoading] = useState(false);
  const token = tokens[tokens.length - 1] ?? "";

  const load = useCallback(async () => {
    setLoading(true);
    const outcome = await run(
      api.GET("/providers", {
        params: {
          query: {
            limit: PAGE_SIZE,
            ...(token === "" ? {} : { token }),
            ...(filters.nameContains === "" ? {} : { nameContains: filters.nameContains }),
            ...(filters.baseURLContains === "" ? {} : { baseURLContains: filters.baseURLContains }),
            ...(filters.visibility === "" ? {} : { visibility: filters.visibility }),
          },
        },
      }),
    );
    setLoading(false);
    if (outcome.ok) {
      setPage(outcome.data);
      setProblem(undefined);
    } else setProblem(outcome.problem);
  }, [filters, token]);

  useEffect(() => {
    void load();
  }, [load]);

  const filter = (change: Partial<Filters>) => {
    setFilters((f) => ({ ...f, ...change }));
    setTokens([""]);
  };

  return (
    <section aria-labelledby="providers-title">
      <div className="heading">
        <h1 id="providers-title">Providers</h1>
        <div className="actions">
          <a className="button" href="#/providers/import">
            Import OpenAPI
          </a>
          <a className="button primary" href="#/providers/new">
            New provider
          </a>
        </div>
      </div>
      <Form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <TextInput
          label="Name contains"
          type="search"
          value={filters.nameContains}
          onChange={(v) => filter({ nameContains: v })}
          error={fieldError(problem, "nameContains")}
        />
        <TextInput
          label="Base URL contains"
          type="search"
          value={filters.baseURLContains}
          onChange={(v) => filter({ baseURLContains: v })}
          error={fieldError(problem, "baseURLContains")}
        />
        <Select
          className="field"
          selectedKey={filters.visibility === "" ? "ANY" : filters.visibility}
          onSelectionChange={(key) => filter({ visibility: key === "ANY" ? "" : (key as "INTERNAL" | "PUBLIC") })}
        >
          <Label>Visibility</Label>
          <Button className="button select">
            <SelectValue />
          </Button>
          <Popover>
            <ListBox className="listbox">
              <ListBoxItem id="ANY">Any</ListBoxItem>
              <ListBoxItem id="INTERNAL">Internal</ListBoxItem>
              <ListBoxItem id="PUBLIC">Public</ListBoxItem>
            </ListBox>
          </Popover>
        </Select>
      </Form>
      <ProblemBanner problem={problem} />
      {loading && <Busy label="Loading providers" />}
      {page !== undefined && (
        <>
          <p className="muted" aria-live="polite">
            {page.matchCount} provider{page.matchCount === 1 ? "" : "s"} match
          </p>
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Base URL</th>
                <th scope="col">Tools</th>
                <th scope="col">Visibility</th>
              </tr>
            </thead>
            <tbody>
              {page.providers.map((p) => (
                <tr key={p.id}>
                  <td>
                    <a href={`#/providers/${p.id}`}>{p.name}</a>
                  </td>
                  <td className="wrap">{p.baseURL}</td>
                  <td>{p.tools.length}</td>
                  <td>{p.visibilityType}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="pager">
            <Button className="button" isDisabled={tokens.length <= 1} onPress={() => setTokens((t) => t.slice(0, -1))}>
              Previous page
            </Button>
            <Button
              className="button"
              isDisabled={page.nextToken === ""}
              onPress={() => setTokens((t) => [...t, page.nextToken])}
            >
              Next page
            </Button>
          </div>
        </>
      )}
    </section>
  );
};
