import * as I from "@mcpsm/domain/openapi-import";
import * as D from "@mcpsm/domain/schemas";
import { USE_CASES as U } from "@mcpsm/domain/use-cases";
import { Schema } from "effect";
import { defineOperation, envelope, type ManagementOperation } from "./define-operation.js";
import { IMPORT_BODY_BYTES, IMPORT_BODY_DEPTH } from "./management-route.js";

// The operations on providers: the tenant's page of them, the versioned record, the OpenAPI import and re-sync
// (docs/api-rules.md §15), and the upstream OAuth connections made to one.

/** A provider's record, its listing, and its import from an OpenAPI description. */
export const PROVIDER_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  defineOperation({
    method: "GET",
    path: "/providers",
    useCase: U.listProviders,
    summary: "List providers (own and PUBLIC), one page at a time",
    tag: "Providers",
    status: 200,
    query: D.ProviderListParameters,
    response: Schema.Struct({
      providers: Schema.Array(D.ProviderRecord),
      matchCount: Schema.Int.annotations({ description: "records matching the filters over all pages" }),
      nextToken: Schema.String.annotations({ description: 'pass as `token` for the next page; "" on the last page' }),
    }).annotations({ identifier: "ProviderPage" }),
    decodeQuery: D.decodeProviderListQuery,
    input: ({ query }) => query,
    answer: (page) => ({ body: page }),
  }),
  defineOperation({
    method: "POST",
    path: "/providers",
    useCase: U.createProvider,
    summary: "Create a provider",
    tag: "Providers",
    status: 201,
    request: envelope("provider", D.ProviderCreate),
    response: envelope("provider", D.ProviderRecord),
    etag: true,
    quota: true,
    decodeBody: D.decodeProviderCreate,
    input: ({ body }) => ({ provider: body }),
    answer: (rec) => ({ body: { provider: rec }, location: `/providers/${rec.id}`, version: rec.version }),
  }),
  defineOperation({
    method: "POST",
    path: "/providers/import",
    useCase: I.importProvider,
    summary: "Create a provider from an OpenAPI description (201), or preview it with dryRun (200)",
    tag: "Providers",
    status: 201,
    dryRunStatus: 200,
    request: envelope("import", D.ProviderImport),
    response: D.ImportResult,
    quota: true,
    maxBodyBytes: IMPORT_BODY_BYTES,
    maxBodyDepth: IMPORT_BODY_DEPTH,
    decodeBody: I.decodeProviderImport,
    input: ({ body }) => body,
    answer: ({ created, result }) =>
      created
        ? { body: result, location: `/providers/${result.provider.id}`, version: result.provider.version }
        : { status: 200, body: result },
  }),
  defineOperation({
    method: "POST",
    path: "/providers/{id}/import",
    useCase: I.resyncProvider,
    summary: "Re-sync a provider's imported tools with a new version of its OpenAPI description",
    tag: "Providers",
    status: 200,
    request: envelope("import", D.ProviderResync),
    response: D.ImportResult,
    quota: true,
    maxBodyBytes: IMPORT_BODY_BYTES,
    maxBodyDepth: IMPORT_BODY_DEPTH,
    decodeBody: I.decodeProviderResync,
    input: ({ params, body }) => ({ providerId: params.id, ...body }),
    answer: (result) => ({ body: result, version: result.provider.version }),
  }),
  defineOperation({
    method: "GET",
    path: "/providers/{id}",
    useCase: U.getProvider,
    summary: "Get a provider",
    tag: "Providers",
    status: 200,
    response: envelope("provider", D.ProviderRecord),
    etag: true,
    input: ({ params }) => ({ providerId: params.id }),
    answer: (provider) => ({ body: { provider }, version: provider.version }),
  }),
  defineOperation({
    method: "PATCH",
    path: "/providers/{id}",
    useCase: U.updateProvider,
    summary: "Update a provider",
    tag: "Providers",
    status: 200,
    request: envelope("provider", D.ProviderPatch),
    response: envelope("provider", D.ProviderRecord),
    etag: true,
    ifMatch: true,
    decodeBody: D.decodeProviderPatch,
    input: ({ params, body, ifMatch }) => ({ providerId: params.id, provider: body, expectedVersion: ifMatch }),
    answer: (rec) => ({ body: { provider: rec }, version: rec.version }),
  }),
  defineOperation({
    method: "DELETE",
    path: "/providers/{id}",
    useCase: U.deleteProvider,
    summary: "Delete a provider",
    tag: "Providers",
    status: 204,
    ifMatch: true,
    input: ({ params, ifMatch }) => ({ providerId: params.id, expectedVersion: ifMatch }),
    answer: () => ({}),
  }),
];

/** The upstream OAuth connections the tenant's MCP callers made to a provider. */
export const PROVIDER_CONNECTION_OPERATIONS: ReadonlyArray<ManagementOperation> = [
  defineOperation({
    method: "GET",
    path: "/providers/{id}/connections",
    useCase: U.listProviderConnections,
    summary: "List the upstream OAuth connections the tenant's MCP callers made to a provider (never a token)",
    tag: "Providers",
    status: 200,
    response: D.UpstreamConnectionList,
    input: ({ params }) => ({ providerId: params.id }),
    answer: (connections) => ({ body: connections }),
  }),
  defineOperation({
    method: "DELETE",
    path: "/providers/{id}/connections/{connectionID}",
    useCase: U.deleteProviderConnection,
    summary: "Delete an upstream OAuth connection: its caller is asked for consent again",
    tag: "Providers",
    status: 204,
    input: ({ params }) => ({ providerId: params.id, connectionId: params.connectionID }),
    answer: () => ({}),
  }),
];
