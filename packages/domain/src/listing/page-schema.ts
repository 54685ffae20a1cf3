import { Schema } from "effect";
import { optional } from "../validation/optional-field.js";
import { PageSizeFromQuery, PageTokenFromQuery } from "./query-parameters.js";

// What every paged list route shares (docs/api-rules.md §11): the `limit` and `token` query parameters and
// the answer's envelope. Each route adds its own filters and names its items; the rest is one shape.

/** Page size of a paged list route when `limit` is absent. */
export const DEFAULT_PAGE_SIZE = 50;
/** Largest page of a paged list route; a larger `limit` is treated as this. */
export const MAX_PAGE_SIZE = 1000;

/**
 * The `limit` and `token` fields of a paged list route's query struct, to spread into it. `tokenDescription`
 * says what a token stays valid for (the filters, the server). Each `jsonSchema` is what a client sends (for
 * the OpenAPI document), not the string decoding.
 */
export const pageParameters = (tokenDescription: string) => ({
  limit: optional(
    PageSizeFromQuery.annotations({
      jsonSchema: {
        type: "integer",
        minimum: 1,
        default: DEFAULT_PAGE_SIZE,
        description: `page size, at least 1; values above ${MAX_PAGE_SIZE} are treated as ${MAX_PAGE_SIZE}`,
      },
    }),
  ),
  token: optional(PageTokenFromQuery.annotations({ jsonSchema: { type: "string", description: tokenDescription } })),
});

/**
 * A page of a list route's answer: its items under `itemsKey`, how many match over all pages, and the token
 * of the next page. The key is the route's own (`auditEvents`, `calls`), so it is a parameter.
 */
export const pageOf = <const K extends string, Item extends Schema.Schema.Any>(
  identifier: string,
  itemsKey: K,
  item: Item,
  matchCountDescription: string,
) => {
  const items = { [itemsKey]: Schema.Array(item) } as { readonly [P in K]: Schema.Array$<Item> };
  return Schema.Struct({
    ...items,
    matchCount: Schema.Int.annotations({ description: matchCountDescription }),
    nextToken: Schema.String.annotations({ description: 'pass as `token` for the next page; "" on the last page' }),
  }).annotations({ identifier });
};
