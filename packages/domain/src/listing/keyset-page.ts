import { Effect } from "effect";
import { PageTokenSigner } from "../secrets/page-token-signer.js";
import type { StoredPage } from "../storage/stored-page.js";
import { invalid } from "../validation/decode-write.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./page-schema.js";
import { type PageCursor, signPageCursor, verifyPageCursor } from "./page-cursor.js";

// The keyset paging every list use case does (docs/api-rules.md §11): verify the token against the tenant
// and filters, read one row more than the page, cut the page and sign the next token from its last row.

/** The page size a paged list route reads: `limit` when given (at most MAX_PAGE_SIZE), else the default. */
export const pageLimit = (limit: number | undefined) => Math.min(limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);

/** One listing's paging: whose rows, which filters, and how its tokens and rows are read. */
export interface KeysetListing<Row, Limit extends number | undefined> {
  readonly tenant: string;
  /** The filters a token belongs to; a listing's own prefix keeps another listing's token from replaying. */
  readonly filterKey: string;
  /** The time key of this listing's tokens (`signPageCursor`). */
  readonly timeKey: string;
  /** Rows per page; undefined: every row on one page. */
  readonly limit: Limit;
  /** The nextToken given; empty or undefined for the first page. */
  readonly token: string | undefined;
  /** Where a page ending at this row ends. */
  readonly cursorOf: (row: Row) => PageCursor;
}

/**
 * One page of a listing: `fetch` reads the rows after the token's cursor, at most `limit` (one more than the
 * page, so the extra row tells whether another page follows; undefined: all). A token that is not this
 * listing's fails with InvalidArgument on `token`, before anything is read.
 */
export const readKeysetPage = <Row, Limit extends number | undefined, E, R>(
  listing: KeysetListing<Row, Limit>,
  fetch: (after: PageCursor | undefined, limit: Limit) => Effect.Effect<StoredPage<Row>, E, R>,
) =>
  Effect.gen(function* () {
    const { tenant, filterKey, timeKey, limit } = listing;
    const token = listing.token || undefined;
    const signer = yield* PageTokenSigner;
    const after = token === undefined ? undefined : verifyPageCursor(signer, token, tenant, filterKey, timeKey);
    if (token !== undefined && after === undefined)
      return yield* invalid([{ path: "token", message: "is not a nextToken of this listing" }]);
    // A number stays a number, undefined stays undefined: the cast only tells TypeScript so.
    const page = yield* fetch(after, (limit === undefined ? undefined : limit + 1) as Limit);
    const items = limit === undefined ? page.items : page.items.slice(0, limit);
    const last = items.at(-1);
    const nextToken =
      page.items.length > items.length && last !== undefined
        ? signPageCursor(signer, tenant, filterKey, timeKey, listing.cursorOf(last))
        : "";
    return { items, matchCount: page.matchCount, nextToken };
  });
