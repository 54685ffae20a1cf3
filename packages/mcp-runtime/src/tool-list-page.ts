import { InvalidArgument } from "@mcpsm/domain/errors";
import type { Tool } from "@modelcontextprotocol/server";
import { Either } from "effect";

// `tools/list` in pages of TOOLS_PAGE_SIZE with the protocol's opaque cursor. The cursor is the offset of
// the next page (base64url of `o<offset>`); it carries no revision, so a list that changed between pages
// simply continues from that position (a stale cursor past the end gives an empty last page).

/** Tools per `tools/list` page: servers up to this size answer in one page, as before paging existed. */
export const TOOLS_PAGE_SIZE = 200;

const encodeCursor = (offset: number) => Buffer.from(`o${offset}`, "utf8").toString("base64url");

const decodeCursor = (cursor: string): number | undefined => {
  const text = /^[A-Za-z0-9_-]{1,16}$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  const match = /^o([1-9][0-9]{0,8})$/.exec(text);
  return match === null ? undefined : Number(match[1]);
};

/** One page of a tool list, with `nextCursor` when more follow; InvalidArgument for a cursor it did not make. */
export const toolListPage = (
  tools: ReadonlyArray<Tool>,
  cursor: string | undefined,
  pageSize = TOOLS_PAGE_SIZE,
): Either.Either<{ tools: Array<Tool>; nextCursor?: string }, InvalidArgument> => {
  const offset = cursor === undefined ? 0 : decodeCursor(cursor);
  if (offset === undefined)
    return Either.left(
      new InvalidArgument({ detail: "invalid cursor", errors: [{ path: "cursor", message: "invalid cursor" }] }),
    );
  const end = offset + pageSize;
  return Either.right(
    end < tools.length
      ? { tools: tools.slice(offset, end), nextCursor: encodeCursor(end) }
      : { tools: tools.slice(offset) },
  );
};
