import { Schema } from "effect";
import type { StoredPage } from "../storage/stored-page.js";

// A server revision as stored (docs/api-rules.md §21): the export document at that version, what a restore
// puts back, who made it and when. The document and the content are JSON values kept as they were written,
// so fields added to the export document or the server row later are kept and diffed without a change here.

/** How many revisions are kept per server (`REVISIONS_KEPT`): older ones are pruned in the write that passes it. */
export const REVISIONS_KEPT = 100;

/** A stored server revision. */
export const ServerRevisionRow = Schema.Struct({
  /** The row's own id (the natural key is the server id and the version). */
  id: Schema.String,
  serverId: Schema.String,
  tenant: Schema.String,
  version: Schema.Number,
  createdAt: Schema.DateFromSelf,
  actorSub: Schema.String,
  actorClientId: Schema.String,
  /** One line saying what changed. */
  summary: Schema.String,
  /** The server's export document (docs/api-rules.md §16) at this version. */
  document: Schema.Unknown,
  /**
   * What a restore writes back: the server row's fields at this version but its identity, timestamps,
   * version and git target (a JSON object; see `revisionContentOf`).
   */
  content: Schema.Unknown,
});
export type ServerRevisionRow = typeof ServerRevisionRow.Type;

/** A revision in a listing: everything but the document and the content. */
export type ServerRevisionEntry = Omit<ServerRevisionRow, "document" | "content">;

/** A paged listing of one server's revisions, newest first. */
export interface ServerRevisionSearch {
  readonly serverId: string;
  /** Only versions below this one (the cursor of the previous page). */
  readonly before?: number | undefined;
  readonly limit: number;
}

/** One page of a server's revisions, and how many it has. */
export type ServerRevisionPage = StoredPage<ServerRevisionEntry>;
