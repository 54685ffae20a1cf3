import { Data, Effect, Schema } from "effect";
import { Aborted, FailedPrecondition, NotFound } from "../errors/domain-errors.js";
import { exportDocumentOf } from "../export/export-document.js";
import { pageLimit, readKeysetPage } from "../listing/keyset-page.js";
import { checkDistinctToolNames } from "../server/server-composition.js";
import { toServerRecord } from "../server/server-record.js";
import { ownedServer, saveServer } from "../server/server-use-cases.js";
import { ServerRow, type ServerGraph } from "../storage/rows.js";
import type { ReadTx, StorageTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { canSee, checkIfMatch, lockServer, now, read, transact } from "../use-case/use-case-kit.js";
import { validateIds, validateInput } from "../validation/validate-input.js";
import { diffDocuments, unifiedDiff } from "./revision-diff.js";
import { RevisionSummary } from "./revision-recording.js";
import type { ServerRevisionEntry } from "./revision-rows.js";
import {
  parseVersion,
  type ServerRestoreRequest,
  type ServerRestoreResult,
  type ServerRevisionDiff,
  type ServerRevisionListQuery,
  ServerRevisionListParameters,
  type ServerRevisionPage,
  toServerRevisionRecord,
} from "./revision-schema.js";

/** Input of `listServerRevisions`. */
export interface ListServerRevisionsInput {
  readonly serverId: string;
  readonly query: ServerRevisionListQuery;
}

/** A version as a use case takes it: a number, or the decimal text of a path parameter. */
export type VersionParameter = number | string;

/** Input of `getServerRevision`. */
export interface GetServerRevisionInput {
  readonly serverId: string;
  readonly version: VersionParameter;
}

/**
 * Input of `diffServerRevisions`: `against` defaults to the version before `version` (for version 1, the
 * empty document: everything in it is added).
 */
export interface DiffServerRevisionsInput {
  readonly serverId: string;
  readonly version: VersionParameter;
  readonly against?: number | undefined;
}

/** Input of `restoreServerRevision`; `expectedVersion` (If-Match) → 412, `body.version` → 409 ABORTED. */
export interface RestoreServerRevisionInput {
  readonly serverId: string;
  readonly version: VersionParameter;
  readonly body: ServerRestoreRequest;
  readonly expectedVersion?: number | undefined;
  readonly dryRun?: boolean | undefined;
}

/** The server id and the version of a request, checked (400 naming the parameter otherwise). */
const checkedParameters = (serverId: string, version: VersionParameter) =>
  Effect.zipRight(validateIds([["id", serverId]]), parseVersion("version", String(version)));

/** A revision of a server of the actor's tenant, or 404 (the server's or the revision's). */
const ownedRevision = (tx: ReadTx, actor: Actor, serverId: string, version: number) =>
  Effect.gen(function* () {
    yield* ownedServer(tx, actor, serverId);
    const found = yield* tx.findServerRevision(serverId, version);
    if (found === undefined) return yield* new NotFound({ kind: "revision", id: `${serverId}@${version}` });
    return found;
  });

/** The diff answer of two documents. */
const diffOf = (version: number, against: number, before: unknown, after: unknown): ServerRevisionDiff => ({
  version,
  against,
  ...diffDocuments(before, after),
  text: unifiedDiff(before, after, `version ${against}`, `version ${version}`),
});

/** One page of a server's revisions, newest first (docs/api-rules.md §21). */
export const listServerRevisions = defineUseCase(
  "listServerRevisions",
  (actor: Actor, { serverId, query }: ListServerRevisionsInput) =>
    Effect.gen(function* () {
      yield* validateIds([["id", serverId]]);
      yield* validateInput("", Schema.typeSchema(ServerRevisionListParameters), query);
      const listing = {
        tenant: actor.tenant,
        filterKey: JSON.stringify(["revisions", serverId]),
        timeKey: "r",
        limit: pageLimit(query.limit),
        token: query.token,
        cursorOf: (entry: ServerRevisionEntry) => ({ at: entry.createdAt, id: String(entry.version) }),
      };
      const page = yield* readKeysetPage(listing, (after, limit) =>
        read((tx) =>
          Effect.zipRight(
            ownedServer(tx, actor, serverId),
            tx.listServerRevisions({ serverId, before: after === undefined ? undefined : Number(after.id), limit }),
          ),
        ),
      );
      const { matchCount, nextToken } = page;
      return { revisions: page.items.map(toServerRevisionRecord), matchCount, nextToken } satisfies ServerRevisionPage;
    }),
);

/** The export document of a server at one of its kept versions. */
export const getServerRevision = defineUseCase(
  "getServerRevision",
  (actor: Actor, { serverId, version: raw }: GetServerRevisionInput) =>
    Effect.gen(function* () {
      const version = yield* checkedParameters(serverId, raw);
      const revision = yield* read((tx) => ownedRevision(tx, actor, serverId, version));
      return revision.document;
    }),
);

/** What changed from revision `against` to revision `version`, per field, per member, and as text. */
export const diffServerRevisions = defineUseCase(
  "diffServerRevisions",
  (actor: Actor, { serverId, version: raw, against }: DiffServerRevisionsInput) =>
    Effect.gen(function* () {
      const version = yield* checkedParameters(serverId, raw);
      if (against !== undefined) yield* parseVersion("against", String(against));
      const base = against ?? version - 1;
      const [to, from] = yield* read((tx) =>
        Effect.all([
          ownedRevision(tx, actor, serverId, version),
          base === 0 ? Effect.succeed({ document: {} }) : ownedRevision(tx, actor, serverId, base),
        ]),
      );
      return diffOf(version, base, from.document, to.document);
    }),
);

/** Carries a dry run's answer out of the transaction it rolls back. */
class DryRunRollback extends Data.TaggedError("DryRunRollback")<{ readonly result: ServerRestoreResult }> {}

const decodeRow = Schema.decodeUnknownEither(ServerRow);

/**
 * The ids a revision's content names that no longer exist (or are no longer visible to the actor), each
 * named from the revision's document where it can be.
 */
const missingReferences = (tx: StorageTx, actor: Actor, row: ServerRow, document: unknown) =>
  Effect.gen(function* () {
    const providerIds = row.providers.map((link) => link.providerId);
    const toolIds = row.providers.flatMap((link) => link.toolIds);
    const found = yield* tx.findProvidersAndTools(providerIds, toolIds);
    const providers = new Map(found.providers.filter((p) => canSee(actor, p)).map((p) => [p.id, p]));
    const tools = new Map(found.tools.map((t) => [t.id, t]));
    // The document lists the server's providers first, in link order, each with its chosen tools in order.
    const exported = (
      document as { providers?: ReadonlyArray<{ name?: string; tools?: ReadonlyArray<{ name?: string }> }> }
    ).providers;
    const missing: Array<{ id: string; what: string }> = [];
    for (const [i, link] of row.providers.entries()) {
      const providerName = exported?.[i]?.name ?? link.providerId;
      if (!providers.has(link.providerId))
        missing.push({ id: link.providerId, what: `provider '${providerName}' (${link.providerId})` });
      for (const [j, toolId] of link.toolIds.entries())
        if (tools.get(toolId)?.providerId !== link.providerId || !providers.has(link.providerId))
          missing.push({
            id: toolId,
            what: `tool '${exported?.[i]?.tools?.[j]?.name ?? toolId}' (${toolId}) of provider '${providerName}'`,
          });
    }
    for (const id of row.promptIds) {
      const prompt = yield* tx.findPrompt(id);
      const owner = prompt === undefined ? undefined : yield* tx.findProvider(prompt.providerId);
      if (owner === undefined || !canSee(actor, owner)) missing.push({ id, what: `prompt ${id}` });
    }
    for (const id of row.resourceIds) {
      const resource = yield* tx.findResource(id);
      const owner = resource === undefined ? undefined : yield* tx.findProvider(resource.providerId);
      if (owner === undefined || !canSee(actor, owner)) missing.push({ id, what: `resource ${id}` });
    }
    return { missing, chosenTools: toolIds.flatMap((id) => tools.get(id) ?? []) };
  });

const documentOf = (tx: StorageTx, id: string) =>
  Effect.flatMap(tx.findServerGraph(id), (graph) =>
    graph === undefined
      ? Effect.fail(new NotFound({ kind: "server", id }))
      : Effect.map(exportDocumentOf(tx, graph), (document) => ({ graph: graph as ServerGraph, document })),
  );

/**
 * Makes a server's content that of one of its revisions again, as a new version (docs/api-rules.md §21):
 * its fields and members, with each tool as it is now. A record the revision names that is gone → 409
 * listing each, nothing changed. `dryRun` answers the same and stores nothing.
 */
export const restoreServerRevision = defineUseCase(
  "restoreServerRevision",
  (actor: Actor, { serverId: id, version: raw, body, expectedVersion: ifMatch, dryRun }: RestoreServerRevisionInput) =>
    Effect.gen(function* () {
      const version = yield* checkedParameters(id, raw);
      const restore = transact((tx) =>
        Effect.gen(function* () {
          yield* lockServer(tx, id);
          const stored = yield* ownedServer(tx, actor, id);
          yield* checkIfMatch("server", stored.version, ifMatch);
          if (body.version !== undefined && body.version !== stored.version)
            return yield* new Aborted({
              detail: `version ${body.version} does not match the stored version ${stored.version}`,
            });
          const revision = yield* ownedRevision(tx, actor, id, version);
          const content = typeof revision.content === "object" && revision.content !== null ? revision.content : {};
          const decoded = decodeRow({
            ...stored,
            ...content,
            version: stored.version + 1,
            updatedAt: yield* now,
          });
          if (decoded._tag === "Left") return yield* Effect.dieMessage(`revision ${version} of ${id} does not decode`);
          const next = decoded.right;
          const { missing, chosenTools } = yield* missingReferences(tx, actor, next, revision.document);
          if (missing.length > 0)
            return yield* new FailedPrecondition({
              detail: `revision ${version} names records that no longer exist: ${missing.map((m) => m.what).join(", ")}`,
              references: missing.map((m) => m.id),
            });
          yield* checkDistinctToolNames(chosenTools);
          const before = yield* documentOf(tx, id);
          const conditional = body.version !== undefined || ifMatch !== undefined;
          yield* saveServer(tx, stored, next, conditional);
          const after = yield* documentOf(tx, id);
          const result: ServerRestoreResult = {
            server: toServerRecord(after.graph),
            diff: diffOf(next.version, stored.version, before.document, after.document),
          };
          return dryRun === true ? yield* new DryRunRollback({ result }) : result;
        }),
      ).pipe(Effect.locally(RevisionSummary, `restored version ${version}`));
      return yield* Effect.catchTag(restore, "DryRunRollback", ({ result }) => Effect.succeed(result));
    }),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const REVISION_USE_CASES = {
  listServerRevisions,
  getServerRevision,
  diffServerRevisions,
  restoreServerRevision,
} as const;
