import type { SearchableTool, ToolIndex } from "../../src/index.js";

/** A tool with only what a test states (GET / with no arguments unless told). */
export const tool = (name: string, extra: Partial<SearchableTool> = {}): SearchableTool => ({
  name,
  method: "GET",
  path: "/",
  arguments: [],
  ...extra,
});

/** The names `query` finds, best first (a refused regex fails the test). */
export const names = (index: ToolIndex, query: string, limit = 10): Array<string> => {
  const outcome = index.search(query, limit);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.hits.map((h) => h.name);
};
