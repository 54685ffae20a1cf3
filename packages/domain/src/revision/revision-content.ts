import type { ServerRow } from "../storage/rows.js";

// What a revision keeps of the server row for a restore, and the one-line summary of a direct change. Both
// work on the row's fields generically, so a field the server row gains later is restored and named
// without a change here.

/** Row fields that are identity, bookkeeping or the git target: never put back by a restore. */
const NOT_CONTENT: ReadonlySet<string> = new Set([
  "id",
  "tenant",
  "createdAt",
  "updatedAt",
  "version",
  "gitConnectionId",
  "gitRepoFullName",
]);

/** The fields of a server row that a revision keeps and a restore writes back. */
export const revisionContentOf = (row: ServerRow): Readonly<Record<string, unknown>> =>
  Object.fromEntries(Object.entries(row).filter(([field]) => !NOT_CONTENT.has(field)));

/** Row fields whose name on the wire differs. */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  resourceIds: "resources",
  promptIds: "prompts",
  gitConnectionId: "gitConnectionID",
};

const BOOKKEEPING: ReadonlySet<string> = new Set(["id", "tenant", "createdAt", "updatedAt", "version"]);

const toolIdsOf = (row: ServerRow) => new Set(row.providers.flatMap((link) => link.toolIds));

/** How the chosen tools moved between two rows: "tools +2 −1", or "" when the same set. */
const toolMoves = (before: ServerRow, after: ServerRow) => {
  const was = toolIdsOf(before);
  const is = toolIdsOf(after);
  const added = [...is].filter((id) => !was.has(id)).length;
  const removed = [...was].filter((id) => !is.has(id)).length;
  const parts = [...(added > 0 ? [`+${added}`] : []), ...(removed > 0 ? [`−${removed}`] : [])];
  return parts.length === 0 ? "" : `tools ${parts.join(" ")}`;
};

/** One line saying how a directly written server row differs from the row it replaced. */
export const summaryOfRowChange = (before: ServerRow | undefined, after: ServerRow): string => {
  if (before === undefined) return after.version === 1 ? "created" : "changed";
  const changed: Array<string> = [];
  const record = after as unknown as Readonly<Record<string, unknown>>;
  const previous = before as unknown as Readonly<Record<string, unknown>>;
  for (const field of new Set([...Object.keys(record), ...Object.keys(previous)])) {
    if (BOOKKEEPING.has(field) || JSON.stringify(record[field]) === JSON.stringify(previous[field])) continue;
    if (field === "providers") {
      const moves = toolMoves(before, after);
      changed.push(moves === "" ? "providers" : moves);
    } else changed.push(WIRE_NAMES[field] ?? field);
  }
  return changed.length === 0 ? "saved without changes" : `changed ${changed.join(", ")}`;
};
