import { Effect, Schema } from "effect";
import { pageOf, pageParameters } from "../listing/page-schema.js";
import { literalFromQuery, queryDecoder } from "../listing/query-parameters.js";
import type { RawQuery } from "../listing/query-parameters.js";
import { ServerRecord } from "../server/server-schema.js";
import { decodeEnvelope, invalid } from "../validation/decode-write.js";
import { optional } from "../validation/optional-field.js";
import { AnyJsonValue, Timestamp, WireInt32 } from "../validation/text.js";
import type { InvalidArgument } from "../errors/domain-errors.js";
import type { ServerRevisionEntry } from "./revision-rows.js";
import type { MemberChange } from "./revision-diff.js";

// The wire shapes of server revisions (docs/api-rules.md §21).

/** A revision in a listing. */
export const ServerRevisionRecord = Schema.Struct({
  version: WireInt32,
  createdAt: Timestamp,
  actor: Schema.Struct({
    sub: Schema.String.annotations({ description: 'the writer\'s subject; "" when unknown or another tenant' }),
    clientId: Schema.String,
  }),
  summary: Schema.String.annotations({ description: "one line saying what changed" }),
}).annotations({ identifier: "ServerRevision" });
export type ServerRevisionRecord = typeof ServerRevisionRecord.Type;

/** The wire form of a listed revision. */
export const toServerRevisionRecord = (row: ServerRevisionEntry): ServerRevisionRecord => ({
  version: row.version,
  createdAt: row.createdAt.toISOString(),
  actor: { sub: row.actorSub, clientId: row.actorClientId },
  summary: row.summary,
});

/** A page of a server's revisions, newest first. */
export const ServerRevisionPage = pageOf(
  "ServerRevisionPage",
  "revisions",
  ServerRevisionRecord,
  "revisions the server has (at most REVISIONS_KEPT)",
);
export type ServerRevisionPage = typeof ServerRevisionPage.Type;

/** The query of `GET /servers/{id}/revisions`. */
export const ServerRevisionListParameters = Schema.Struct({
  ...pageParameters("the nextToken of the previous page (opaque)"),
});
export type ServerRevisionListQuery = typeof ServerRevisionListParameters.Type;

/** Decodes the query of `GET /servers/{id}/revisions`. */
export const decodeServerRevisionListQuery = queryDecoder(ServerRevisionListParameters);

/** A version as a path or query parameter: a decimal whole number from 1 to 2^31−1. */
export const parseVersion = (name: string, value: string): Effect.Effect<number, InvalidArgument> => {
  const n = /^[1-9]\d{0,9}$/.test(value) ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n <= 2_147_483_647
    ? Effect.succeed(n)
    : Effect.fail(invalid([{ path: name, message: "must be a version: a whole number of at least 1" }]));
};

/** The query of `GET /servers/{id}/revisions/{version}/diff`. */
export const ServerRevisionDiffParameters = Schema.Struct({
  against: optional(
    Schema.String.annotations({
      jsonSchema: {
        type: "integer",
        minimum: 1,
        description: "the version compared with (the older side); default: the version before",
      },
    }),
  ),
});
const decodeDiffParameters = queryDecoder(ServerRevisionDiffParameters);

/** Decodes the query of the diff route: `against`, a version, at most once. */
export const decodeServerRevisionDiffQuery = (query: RawQuery) =>
  Effect.flatMap(decodeDiffParameters(query), ({ against }) =>
    against === undefined || against === ""
      ? Effect.succeed({ against: undefined })
      : Effect.map(parseVersion("against", against), (v) => ({ against: v as number | undefined })),
  );

/** One changed value of a diff. */
const FieldChangeRecord = Schema.Struct({
  path: Schema.String.annotations({ description: "dotted path below the member (or the document)" }),
  before: optional(AnyJsonValue.annotations({ description: "absent when the field was not there" })),
  after: optional(AnyJsonValue.annotations({ description: "absent when the field is gone" })),
}).annotations({ identifier: "RevisionFieldChange" });

/** A member added, removed or changed in a diff. */
const MemberChangeRecord: Schema.Schema<MemberChange> = Schema.Struct({
  kind: Schema.String.annotations({ description: "provider, tool, prompt, resource, variable, argument…" }),
  name: Schema.String,
  change: Schema.Literal("added", "removed", "changed"),
  fields: Schema.Array(FieldChangeRecord),
  members: Schema.Array(Schema.suspend((): Schema.Schema<MemberChange> => MemberChangeRecord)),
}).annotations({ identifier: "RevisionMemberChange" });

/** What changed from one revision (`against`) to another (`version`). */
export const ServerRevisionDiff = Schema.Struct({
  version: WireInt32,
  against: WireInt32,
  fields: Schema.Array(FieldChangeRecord).annotations({ description: "changed fields of the document (server.*)" }),
  members: Schema.Array(MemberChangeRecord).annotations({
    description:
      "providers and variables added, removed or changed; a changed provider lists its tools, prompts, resources",
  }),
  text: Schema.String.annotations({ description: "the same as a unified diff of the two documents, for people" }),
}).annotations({ identifier: "ServerRevisionDiff" });
export type ServerRevisionDiff = typeof ServerRevisionDiff.Type;

/** The optional body of a restore: the version the caller last saw (docs/api-rules.md §7). */
export const ServerRestoreRequest = Schema.Struct({
  version: optional(Schema.Int.annotations({ description: "the server's current version; another one → 409 ABORTED" })),
}).annotations({ identifier: "ServerRestoreRequest" });
export type ServerRestoreRequest = typeof ServerRestoreRequest.Type;

/** Decodes a restore body: none, or `{"server": {"version": n}}`. */
export const decodeServerRestore = (body: unknown) =>
  body === undefined ? Effect.succeed({}) : decodeEnvelope("server", ServerRestoreRequest, [], body);

/** The query of a restore: `dryRun=true` answers what it would do and stores nothing. */
export const ServerRestoreParameters = Schema.Struct({
  dryRun: optional(
    literalFromQuery(["true", "false"], "must be true or false").annotations({
      jsonSchema: { type: "boolean", default: false, description: "true: answer the preview, store nothing" },
    }),
  ),
});
const decodeRestoreParameters = queryDecoder(ServerRestoreParameters);

/** Decodes the query of a restore. */
export const decodeServerRestoreQuery = (query: RawQuery) =>
  Effect.map(decodeRestoreParameters(query), ({ dryRun }) => ({ dryRun: dryRun === "true" }));

/** The answer of a restore: the server as it is (or would be) and what changed from the version before. */
export const ServerRestoreResult = Schema.Struct({
  server: ServerRecord,
  diff: ServerRevisionDiff,
}).annotations({ identifier: "ServerRestoreResult" });
export type ServerRestoreResult = typeof ServerRestoreResult.Type;
