import type { components } from "@mcpsm/client";
import { useEffect, useState } from "react";
import { api, run } from "../api/client.js";
import type { Problem } from "../api/problem.js";

// A provider's tools as the service pages them (GET /providers/{id}/tools, issue 31): PAGE_SIZE at a time,
// the filter sent as `q` once typing pauses, each page's token kept so "Previous page" goes back without
// starting over. Only the page on screen is ever fetched, whatever the provider holds.

type ToolPage = components["schemas"]["ProviderToolPage"];

/** Rows per page. */
export const PAGE_SIZE = 50;
/** How long typing must pause before the filter goes to the service. */
const FILTER_PAUSE_MS = 200;

/** The tool pages of a provider; `generation` changes when its tools may have changed (refetch the page). */
export const useToolPages = (providerId: string, generation: number) => {
  const [query, setQuery] = useState("");
  const [filter, setFilter] = useState("");
  // tokens[i] fetches page i; page 0's is "".
  const [tokens, setTokens] = useState<ReadonlyArray<string>>([""]);
  const [page, setPage] = useState(0);
  const [answer, setAnswer] = useState<{ readonly page: number; readonly data: ToolPage }>();
  const [problem, setProblem] = useState<Problem>();

  useEffect(() => {
    const q = query.trim();
    if (q === filter) return;
    const timer = setTimeout(() => {
      setFilter(q);
      setTokens([""]);
      setPage(0);
    }, FILTER_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [query, filter]);

  const token = tokens[page] ?? "";
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new generation refetches the same page
  useEffect(() => {
    let current = true;
    const query = { limit: PAGE_SIZE, ...(filter === "" ? {} : { q: filter }), ...(token === "" ? {} : { token }) };
    void run(api.GET("/providers/{id}/tools", { params: { path: { id: providerId }, query } })).then((out) => {
      if (!current) return;
      if (!out.ok) return setProblem(out.problem);
      setProblem(undefined);
      // Every tool of this page went (deleted): show the page before it.
      if (out.data.tools.length === 0 && page > 0) return setPage(page - 1);
      setAnswer({ page, data: out.data });
    });
    return () => {
      current = false;
    };
  }, [providerId, filter, token, page, generation]);

  return {
    query,
    setQuery,
    /** The filter the rows on screen answer (the query once sent). */
    filter,
    /** The page on screen and its tools (undefined until the first answer). */
    answer,
    problem,
    hasNext: answer !== undefined && answer.page === page && answer.data.nextToken !== "",
    hasPrevious: page > 0,
    next: () => {
      if (answer === undefined || answer.data.nextToken === "") return;
      const nextToken = answer.data.nextToken;
      setTokens((known) => [...known.slice(0, answer.page + 1), nextToken]);
      setPage(answer.page + 1);
    },
    previous: () => setPage((p) => Math.max(0, p - 1)),
  };
};
