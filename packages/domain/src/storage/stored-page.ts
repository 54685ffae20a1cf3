// What every paged search of the storage port answers, whatever it lists: the rows of one page (a listing
// asks for one more than it shows, to know whether another follows) and how many match over all pages.

/** One page of a store's search, and how many rows match over all pages. */
export interface StoredPage<Row> {
  readonly items: ReadonlyArray<Row>;
  readonly matchCount: number;
}
