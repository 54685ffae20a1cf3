import * as D from "@mcpsm/domain/schemas";
import { USE_CASES as U } from "@mcpsm/domain/use-cases";
import { defineOperation, type ManagementOperation } from "./define-operation.js";
import { IMPORT_DOCUMENT_DEPTH } from "./management-route.js";

/** Server export and import (docs/api-rules.md §16). */
export const SERVER_TRANSFER_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  defineOperation({
    method: "GET",
    path: "/servers/{id}/export",
    useCase: U.exportServer,
    summary: "Export a server as a portable document (no ids, no secrets)",
    tag: "Servers",
    status: 200,
    response: D.ServerExportDocument,
    input: ({ params }) => ({ serverId: params.id }),
    answer: (document) => ({ body: document }),
  }),
  defineOperation({
    method: "POST",
    path: "/servers/import",
    useCase: U.importServer,
    summary:
      "Create a server from an export document, reusing the tenant's providers (201), or preview it with dryRun=true (200)",
    tag: "Servers",
    status: 201,
    dryRunStatus: 200,
    query: D.ServerImportParameters,
    request: D.ServerExportDocument,
    response: D.ServerImportResult,
    etag: true,
    quota: true,
    maxBodyDepth: IMPORT_DOCUMENT_DEPTH,
    decodeQuery: D.decodeServerImportQuery,
    decodeBody: D.decodeServerExportDocument,
    input: ({ query, body }) => ({ document: body, dryRun: query.dryRun }),
    answer: ({ stored, result }) =>
      stored && result.server.id !== undefined
        ? { body: result, location: `/servers/${result.server.id}`, version: result.server.version }
        : { status: 200, body: result },
  }),
];
