import { Effect, Schema } from "effect";
import { readKeysetPage } from "../listing/keyset-page.js";
import { PageSizeFromQuery, PageTokenFromQuery, QueryValue, queryDecoder } from "../listing/query-parameters.js";
import { MAX_PAGE_SIZE } from "../listing/page-schema.js";
import type { ToolRow } from "../storage/rows.js";
import type { Actor } from "../tenancy/actor.js";
import { read, visibleProvider } from "../use-case/use-case-kit.js";
import { optional } from "../validation/optional-field.js";
import { validateIds, validateInput } from "../validation/validate-input.js";
import { toToolRecord } from "./tool-record.js";
import type { ToolRecord } from "./tool-schema.js";

// `GET /providers/{id}/tools` (docs/api-rules.md §9): every tool when no `limit` is given, as the route has
// always answered; with one, pages in creation order under a signed nextToken, like `GET /providers` (§11).

/**
 * The query parameters of `GET /providers/{id}/tools`, each at most once. Unlike `GET /providers`, other
 * parameters are ignored: the route never refused them, and existing callers keep working.
 */
export const ProviderToolListParameters = Schema.Struct({
  // Each field's `jsonSchema` is what a client sends (for the OpenAPI document), not the string decoding.
  limit: optional(
    PageSizeFromQuery.annotations({
      jsonSchema: {
        type: "integer",
        minimum: 1,
        description: `page size, at least 1; values above ${MAX_PAGE_SIZE} are treated as ${MAX_PAGE_SIZE}; absent: every tool on one page`,
      },
    }),
  ),
  token: optional(
    PageTokenFromQuery.annotations({
      jsonSchema: {
        type: "string",
        description:
          "the nextToken of the previous page (opaque; valid only for the same provider and q); absent or empty for the first page",
      },
    }),
  ),
  q: optional(
    QueryValue.annotations({
      jsonSchema: {
        type: "string",
        description: "only tools whose name, title, description, method or path contains this text (case-insensitive)",
      },
    }),
  ),
});

/** A typed `GET /providers/{id}/tools` query: page size, page token and filter. */
export type ProviderToolListQuery = typeof ProviderToolListParameters.Type;

/** Decodes the query string of `GET /providers/{id}/tools`; parameters it does not know are ignored. */
export const decodeProviderToolListQuery = queryDecoder(ProviderToolListParameters, { unknown: "ignore" });

/** Input of `listProviderTools`: the provider, and optionally a page size, page token and filter. */
export interface ListProviderToolsInput extends ProviderToolListQuery {
  readonly providerId: string;
}

/** A page of a provider's tools as the API returns it. */
export interface ProviderToolPage {
  readonly tools: ReadonlyArray<ToolRecord>;
  /** Tools matching `q` over all pages. */
  readonly matchCount: number;
  /** Opaque token of the next page; "" on the last page. */
  readonly nextToken: string;
}

const nonEmpty = (value: string | undefined) => (value === "" ? undefined : value);

/** The time key of this listing's tokens (providers' is "c"): a token of one listing never reads as the other's. */
const TIME_KEY = "tc";

/** One page of the tools of a provider the actor can see, in creation order; every tool without a limit. */
export const listProviderToolsPage = (actor: Actor, input: ListProviderToolsInput) =>
  Effect.gen(function* () {
    const { providerId, ...query } = input;
    yield* validateIds([["id", providerId]]);
    yield* validateInput("", Schema.typeSchema(ProviderToolListParameters), query);
    const limit = query.limit === undefined ? undefined : Math.min(query.limit, MAX_PAGE_SIZE);
    const contains = nonEmpty(query.q);
    const listing = {
      tenant: actor.tenant,
      filterKey: JSON.stringify({ providerId, q: contains ?? "" }),
      timeKey: TIME_KEY,
      limit,
      token: query.token,
      cursorOf: (row: ToolRow) => ({ at: row.createdAt, id: row.id }),
    };
    const page = yield* readKeysetPage(listing, (cursor, limit) =>
      read((tx) =>
        Effect.zipRight(
          visibleProvider(tx, actor, providerId),
          tx.searchTools({
            providerId,
            contains,
            after: cursor === undefined ? undefined : { createdAt: cursor.at, id: cursor.id },
            limit,
          }),
        ),
      ),
    );
    const { matchCount, nextToken } = page;
    return { tools: page.items.map(toToolRecord), matchCount, nextToken } satisfies ProviderToolPage;
  });
