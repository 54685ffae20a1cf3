import * as D from "@mcpsm/domain/schemas";
import { USE_CASES as U } from "@mcpsm/domain/use-cases";
import { defineOperation, envelope, type ManagementOperation } from "./define-operation.js";

/** Server revisions: list, read, compare, restore (docs/api-rules.md §21). */
export const REVISION_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  defineOperation({
    method: "GET",
    path: "/servers/{id}/revisions",
    useCase: U.listServerRevisions,
    summary: "List a server's revisions, newest first, one page at a time",
    tag: "Servers",
    status: 200,
    query: D.ServerRevisionListParameters,
    response: D.ServerRevisionPage,
    decodeQuery: D.decodeServerRevisionListQuery,
    input: ({ params, query }) => ({ serverId: params.id, query }),
    answer: (page) => ({ body: page }),
  }),
  defineOperation({
    method: "GET",
    path: "/servers/{id}/revisions/{version}",
    useCase: U.getServerRevision,
    summary: "Read a server's export document at one of its kept versions",
    tag: "Servers",
    status: 200,
    response: D.ServerExportDocument,
    input: ({ params }) => ({ serverId: params.id, version: params.version }),
    answer: (document) => ({ body: document }),
  }),
  defineOperation({
    method: "GET",
    path: "/servers/{id}/revisions/{version}/diff",
    useCase: U.diffServerRevisions,
    summary: "What changed from one revision (against) to another, per field and per tool, and as a unified diff",
    tag: "Servers",
    status: 200,
    query: D.ServerRevisionDiffParameters,
    response: D.ServerRevisionDiff,
    decodeQuery: D.decodeServerRevisionDiffQuery,
    input: ({ params, query }) => ({ serverId: params.id, version: params.version, against: query.against }),
    answer: (diff) => ({ body: diff }),
  }),
  defineOperation({
    method: "POST",
    path: "/servers/{id}/revisions/{version}/restore",
    useCase: U.restoreServerRevision,
    summary: "Make a server's content that of a revision again, as a new version (or preview it with dryRun=true)",
    tag: "Servers",
    status: 200,
    query: D.ServerRestoreParameters,
    request: envelope("server", D.ServerRestoreRequest),
    response: D.ServerRestoreResult,
    etag: true,
    ifMatch: true,
    decodeQuery: D.decodeServerRestoreQuery,
    decodeBody: D.decodeServerRestore,
    input: ({ params, query, body, ifMatch }) => ({
      serverId: params.id,
      version: params.version,
      body,
      expectedVersion: ifMatch,
      dryRun: query.dryRun,
    }),
    // A dry run stored nothing: its ETag is the stored server's, the version before the one it shows.
    answer: (result, { query }) => ({ body: result, version: result.server.version - (query.dryRun ? 1 : 0) }),
  }),
];
