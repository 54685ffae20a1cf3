/**
 * Which of a tool's query arguments narrow or page its answer, read from its `queryArgsJSONSchema` by
 * name: what a cut answer tells the model to use next.
 */
export interface PagingHints {
  /** Arguments that set a page size (`limit`, `per_page`, `pageSize`, `max_results`, `top`…). */
  readonly pageSize: ReadonlyArray<string>;
  /** Arguments that move to another page (`page`, `offset`, `cursor`, `starting_after`, `pageToken`…). */
  readonly position: ReadonlyArray<string>;
  /** Arguments that filter or select (`filter`, `q`, `query`, `search`, `fields`, `since`…). */
  readonly narrow: ReadonlyArray<string>;
}

const normalise = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, "");

const PAGE_SIZE = new Set([
  "limit",
  "perpage",
  "pagesize",
  "maxresults",
  "maxitems",
  "top",
  "count",
  "size",
  "first",
  "last",
  "pagelimit",
  "numresults",
]);
const POSITION = new Set([
  "page",
  "offset",
  "skip",
  "cursor",
  "startingafter",
  "endingbefore",
  "after",
  "before",
  "pagetoken",
  "nexttoken",
  "continuationtoken",
  "continuation",
  "marker",
  "start",
  "startindex",
  "pagenumber",
  "nextpagetoken",
  "startcursor",
  "since_id",
  "sinceid",
  "maxid",
]);
const NARROW = new Set([
  "filter",
  "q",
  "query",
  "search",
  "fields",
  "select",
  "since",
  "until",
  "from",
  "to",
  "status",
  "state",
  "type",
  "sort",
  "order",
  "orderby",
  "include",
  "expand",
  "where",
  "updatedsince",
  "createdafter",
  "createdbefore",
  "updatedafter",
  "modifiedsince",
]);

/** The query arguments of `queryArgsSchema` that page or narrow a request, in the schema's order. */
export const pagingHintsOf = (queryArgsSchema: unknown): PagingHints => {
  const properties =
    typeof queryArgsSchema === "object" && queryArgsSchema !== null
      ? (queryArgsSchema as { properties?: unknown }).properties
      : undefined;
  const names = typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
  const pick = (set: ReadonlySet<string>) =>
    names.filter((name) => {
      const n = normalise(name);
      return set.has(n) || [...set].some((word) => word.length > 3 && n.endsWith(word));
    });
  const pageSize = pick(PAGE_SIZE);
  const position = pick(POSITION).filter((n) => !pageSize.includes(n));
  const narrow = pick(NARROW).filter((n) => !pageSize.includes(n) && !position.includes(n));
  return { pageSize, position, narrow };
};
