import type { DomainError } from "@mcpsm/domain/errors";
import * as W from "@mcpsm/domain/schemas";
import type { RawQuery } from "@mcpsm/domain/schemas";
import * as I from "@mcpsm/domain/openapi-import";
import * as U from "@mcpsm/domain/use-cases";
import type { Actor, DomainServices, Operation } from "@mcpsm/domain/use-cases";
import { MANAGEMENT_ROUTES } from "@mcpsm/openapi";
import { Effect } from "effect";
import type { DescriptionFetcher } from "../openapi-import/description-fetcher.js";
import { importFromUrl } from "../openapi-import/import-from-url.js";
import type { ImportGate } from "../openapi-import/import-gate.js";

/** What a route handler gets: the authenticated actor and the parsed request. */
export interface RouteInput {
  readonly actor: Actor;
  readonly params: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly query: RawQuery;
  /** The version named by If-Match, when one was sent. */
  readonly ifMatch: number | undefined;
}

/** What a route answers on success. */
export interface Reply {
  readonly status: 200 | 201 | 204;
  readonly body?: unknown;
  /** Path of the created record, for `Location`. */
  readonly location?: string;
  /** Revision for `ETag`. */
  readonly version?: number;
}

/** The services the use cases need; provided by the app's runtime. */
export type AppServices = DomainServices | I.OpenApiReader | DescriptionFetcher | ImportGate;

/**
 * One management route: method, path (router syntax, `:id`), the operation (and so the scope) it is, and its
 * handler, which decodes the wire body or query with the domain's decoders and calls the use case.
 */
export interface Route {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path: string;
  readonly operation: Operation;
  readonly handle: (input: RouteInput) => Effect.Effect<Reply, DomainError, AppServices>;
  /**
   * For a read whose 200 answer is a function of the caller's tenant and one server's graph alone (the use
   * case reads nothing else, and the scope is checked before): the id of that server. Its serialised answer
   * is then kept per cached graph (serialised-answers.ts).
   */
  readonly answerFromServerGraph?: (params: Readonly<Record<string, string>>) => string | undefined;
  /** Largest accepted body, when not the default. */
  readonly maxBodyBytes?: number;
  /** Deepest accepted body nesting, when not the default. */
  readonly maxBodyDepth?: number;
}

const ok = (body: unknown, version?: number): Reply => ({
  status: 200,
  body,
  ...(version === undefined ? {} : { version }),
});
const created = (body: unknown, location: string, version?: number): Reply => ({
  status: 201,
  body,
  location,
  ...(version === undefined ? {} : { version }),
});
const noContent: Reply = { status: 204 };

type Handle = Route["handle"];

/** Path parameters are checked in path order before the body is read (the first bad one answers 400). */
const pathIds = (params: Readonly<Record<string, string>>) =>
  Effect.forEach(Object.entries(params), ([name, value]) => W.decodePathId(name, value), { discard: true });

/** The handler of every operation (the type makes a missing one a compile error). */
const HANDLERS: { readonly [O in Operation]: Handle } = {
  listServers: ({ actor }) => Effect.map(U.listServers(actor, {}), (servers) => ok({ servers })),
  createServer: ({ actor, body }) =>
    Effect.flatMap(W.decodeServerCreate(body), (server) =>
      Effect.map(U.createServer(actor, { server }), (rec) =>
        created({ server: rec }, `/servers/${rec.id}`, rec.version),
      ),
    ),
  getServer: ({ actor, params }) =>
    Effect.map(U.getServer(actor, { serverId: params.id! }), (server) => ok({ server }, server.version)),
  updateServer: ({ actor, params, body, ifMatch }) =>
    Effect.flatMap(W.decodeServerPatch(body), (server) =>
      Effect.map(U.updateServer(actor, { serverId: params.id!, server, expectedVersion: ifMatch }), (rec) =>
        ok({ server: rec }, rec.version),
      ),
    ),
  deleteServer: ({ actor, params, ifMatch }) =>
    Effect.as(U.deleteServer(actor, { serverId: params.id!, expectedVersion: ifMatch }), noContent),
  listServerTools: ({ actor, params }) =>
    Effect.map(U.listServerTools(actor, { serverId: params.id! }), (tools) => ok({ tools })),
  addServerTool: ({ actor, params, body }) =>
    Effect.flatMap(W.decodeServerToolLink(body), (tool) =>
      Effect.map(U.addServerTool(actor, { serverId: params.id!, tool }), (rec) =>
        created({ tool: rec }, `/servers/${params.id}/tools/${rec.id}`),
      ),
    ),
  removeServerTool: ({ actor, params }) =>
    Effect.as(U.removeServerTool(actor, { serverId: params.id!, toolId: params.toolID! }), noContent),
  listServerResources: ({ actor, params }) =>
    Effect.map(U.listServerResources(actor, { serverId: params.id! }), (resources) => ok({ resources })),
  addServerResource: ({ actor, params, body }) =>
    Effect.flatMap(W.decodeServerResourceLink(body), (resource) =>
      Effect.map(U.addServerResource(actor, { serverId: params.id!, resource }), (rec) =>
        created({ resource: rec }, `/servers/${params.id}/resources/${rec.id}`),
      ),
    ),
  removeServerResource: ({ actor, params }) =>
    Effect.as(U.removeServerResource(actor, { serverId: params.id!, resourceId: params.resourceID! }), noContent),
  listServerPrompts: ({ actor, params }) =>
    Effect.map(U.listServerPrompts(actor, { serverId: params.id! }), (prompts) => ok({ prompts })),
  addServerPrompt: ({ actor, params, body }) =>
    Effect.flatMap(W.decodeServerPromptLink(body), (prompt) =>
      Effect.map(U.addServerPrompt(actor, { serverId: params.id!, prompt }), (rec) =>
        created({ prompt: rec }, `/servers/${params.id}/prompts/${rec.id}`),
      ),
    ),
  removeServerPrompt: ({ actor, params }) =>
    Effect.as(U.removeServerPrompt(actor, { serverId: params.id!, promptId: params.promptID! }), noContent),
  createServerToken: ({ actor, params, body }) =>
    Effect.flatMap(W.decodeServerTokenCreate(body), (token) =>
      Effect.map(U.createServerToken(actor, { serverId: params.id!, token }), (rec) =>
        created({ token: rec }, `/servers/${params.id}/tokens/${rec.id}`),
      ),
    ),
  listServerTokens: ({ actor, params }) =>
    Effect.map(U.listServerTokens(actor, { serverId: params.id! }), (tokens) => ok({ tokens })),
  getServerToken: ({ actor, params }) =>
    Effect.map(U.getServerToken(actor, { serverId: params.id!, tokenId: params.tokenID! }), (token) => ok({ token })),
  revokeServerToken: ({ actor, params }) =>
    Effect.as(U.revokeServerToken(actor, { serverId: params.id!, tokenId: params.tokenID! }), noContent),

  listProviders: ({ actor, query }) =>
    Effect.flatMap(W.decodeProviderListQuery(query), (q) => Effect.map(U.listProviders(actor, q), ok)),
  createProvider: ({ actor, body }) =>
    Effect.flatMap(W.decodeProviderCreate(body), (provider) =>
      Effect.map(U.createProvider(actor, { provider }), (rec) =>
        created({ provider: rec }, `/providers/${rec.id}`, rec.version),
      ),
    ),
  getProvider: ({ actor, params }) =>
    Effect.map(U.getProvider(actor, { providerId: params.id! }), (provider) => ok({ provider }, provider.version)),
  updateProvider: ({ actor, params, body, ifMatch }) =>
    Effect.flatMap(W.decodeProviderPatch(body), (provider) =>
      Effect.map(U.updateProvider(actor, { providerId: params.id!, provider, expectedVersion: ifMatch }), (rec) =>
        ok({ provider: rec }, rec.version),
      ),
    ),
  deleteProvider: ({ actor, params, ifMatch }) =>
    Effect.as(U.deleteProvider(actor, { providerId: params.id!, expectedVersion: ifMatch }), noContent),
  // The import use cases still take the wire body (see @mcpsm/domain/openapi-import).
  importProvider: ({ actor, body }) =>
    Effect.map(
      importFromUrl(body, (b, fetchedFrom) => I.importProvider(actor, b, fetchedFrom), actor.tenant),
      ({ created: stored, result }) =>
        stored ? created(result, `/providers/${result.provider.id}`, result.provider.version) : ok(result),
    ),
  resyncProvider: ({ actor, params, body }) =>
    Effect.map(
      importFromUrl(body, (b, fetchedFrom) => I.resyncProvider(actor, params.id!, b, fetchedFrom), actor.tenant),
      (result) => ok(result, result.provider.version),
    ),

  listProviderTools: ({ actor, params }) =>
    Effect.map(U.listProviderTools(actor, { providerId: params.id! }), (tools) => ok({ tools })),
  createProviderTool: ({ actor, params, body }) =>
    Effect.flatMap(W.decodeToolCreate(body), (tool) =>
      Effect.map(U.createProviderTool(actor, { providerId: params.id!, tool }), (rec) =>
        created({ tool: rec }, `/providers/${params.id}/tools/${rec.id}`),
      ),
    ),
  getProviderTool: ({ actor, params }) =>
    Effect.map(U.getProviderTool(actor, { providerId: params.id!, toolId: params.toolID! }), (tool) => ok({ tool })),
  updateProviderTool: ({ actor, params, body }) =>
    Effect.flatMap(W.decodeToolPatch(body), (tool) =>
      Effect.map(U.updateProviderTool(actor, { providerId: params.id!, toolId: params.toolID!, tool }), (rec) =>
        ok({ tool: rec }),
      ),
    ),
  deleteProviderTool: ({ actor, params }) =>
    Effect.as(U.deleteProviderTool(actor, { providerId: params.id!, toolId: params.toolID! }), noContent),

  listProviderPrompts: ({ actor, params }) =>
    Effect.map(U.listProviderPrompts(actor, { providerId: params.id! }), (prompts) => ok({ prompts })),
  createProviderPrompt: ({ actor, params, body }) =>
    Effect.flatMap(W.decodePromptCreate(body), (prompt) =>
      Effect.map(U.createProviderPrompt(actor, { providerId: params.id!, prompt }), (rec) =>
        created({ prompt: rec }, `/providers/${params.id}/prompts/${rec.id}`),
      ),
    ),
  getProviderPrompt: ({ actor, params }) =>
    Effect.map(U.getProviderPrompt(actor, { providerId: params.id!, promptId: params.promptID! }), (prompt) =>
      ok({ prompt }),
    ),
  updateProviderPrompt: ({ actor, params, body }) =>
    Effect.flatMap(W.decodePromptPatch(body), (prompt) =>
      Effect.map(U.updateProviderPrompt(actor, { providerId: params.id!, promptId: params.promptID!, prompt }), (rec) =>
        ok({ prompt: rec }),
      ),
    ),
  deleteProviderPrompt: ({ actor, params }) =>
    Effect.as(U.deleteProviderPrompt(actor, { providerId: params.id!, promptId: params.promptID! }), noContent),

  listProviderResources: ({ actor, params }) =>
    Effect.map(U.listProviderResources(actor, { providerId: params.id! }), (resources) => ok({ resources })),
  createProviderResource: ({ actor, params, body }) =>
    Effect.flatMap(W.decodeResourceCreate(body), (resource) =>
      Effect.map(U.createProviderResource(actor, { providerId: params.id!, resource }), (rec) =>
        created({ resource: rec }, `/providers/${params.id}/resources/${rec.id}`),
      ),
    ),
  getProviderResource: ({ actor, params }) =>
    Effect.map(U.getProviderResource(actor, { providerId: params.id!, resourceId: params.resourceID! }), (resource) =>
      ok({ resource }),
    ),
  updateProviderResource: ({ actor, params, body }) =>
    Effect.flatMap(W.decodeResourcePatch(body), (resource) =>
      Effect.map(
        U.updateProviderResource(actor, { providerId: params.id!, resourceId: params.resourceID!, resource }),
        (rec) => ok({ resource: rec }),
      ),
    ),
  deleteProviderResource: ({ actor, params }) =>
    Effect.as(U.deleteProviderResource(actor, { providerId: params.id!, resourceId: params.resourceID! }), noContent),

  listVariables: ({ actor }) => Effect.map(U.listVariables(actor, {}), (variables) => ok({ variables })),
  createVariable: ({ actor, body }) =>
    Effect.flatMap(W.decodeVariableCreate(body), (variable) =>
      Effect.map(U.createVariable(actor, { variable }), (rec) => created({ variable: rec }, `/variables/${rec.id}`)),
    ),
  getVariable: ({ actor, params }) =>
    Effect.map(U.getVariable(actor, { variableId: params.id! }), (variable) =>
      ok({ variable }, U.variableRevision(variable.updatedAt)),
    ),
  updateVariable: ({ actor, params, body, ifMatch }) =>
    Effect.flatMap(W.decodeVariablePatch(body), (variable) =>
      Effect.map(U.updateVariable(actor, { variableId: params.id!, variable, expectedVersion: ifMatch }), (rec) =>
        ok({ variable: rec }, U.variableRevision(rec.updatedAt)),
      ),
    ),
  deleteVariable: ({ actor, params, ifMatch }) =>
    Effect.as(U.deleteVariable(actor, { variableId: params.id!, expectedVersion: ifMatch }), noContent),

  listAuditEvents: ({ actor, query }) =>
    Effect.flatMap(W.decodeAuditListQuery(query), (q) => Effect.map(U.listAuditEvents(actor, q), ok)),

  listProviderConnections: ({ actor, params }) =>
    Effect.map(U.listProviderConnections(actor, { providerId: params.id! }), ok),
  deleteProviderConnection: ({ actor, params }) =>
    Effect.as(
      U.deleteProviderConnection(actor, { providerId: params.id!, connectionId: params.connectionID! }),
      noContent,
    ),
  exportServer: ({ actor, params }) => Effect.map(U.exportServer(actor, { serverId: params.id! }), (doc) => ok(doc)),
  importServer: ({ actor, body, query }) =>
    Effect.flatMap(Effect.zip(W.decodeServerImportQuery(query), W.decodeServerExportDocument(body)), ([q, document]) =>
      Effect.map(U.importServer(actor, { document, dryRun: q.dryRun }), ({ stored, result }) =>
        stored && result.server.id !== undefined
          ? created(result, `/servers/${result.server.id}`, result.server.version)
          : ok(result),
      ),
    ),

  createGitConnection: ({ actor, body }) =>
    Effect.flatMap(W.decodeGitConnectionCreate(body), (gitConnection) =>
      Effect.map(U.createGitConnection(actor, { gitConnection }), (rec) =>
        created({ gitConnection: rec }, `/git-connections/${rec.id}`),
      ),
    ),
  listGitConnections: ({ actor }) =>
    Effect.map(U.listGitConnections(actor, {}), (gitConnections) => ok({ gitConnections })),
  getGitConnection: ({ actor, params }) =>
    Effect.map(U.getGitConnection(actor, { gitConnectionId: params.id! }), (gitConnection) => ok({ gitConnection })),
  deleteGitConnection: ({ actor, params }) =>
    Effect.as(U.deleteGitConnection(actor, { gitConnectionId: params.id! }), noContent),
  getServerGitSync: ({ actor, params }) =>
    Effect.map(U.getServerGitSync(actor, { serverId: params.id! }), (gitSync) => ok({ gitSync })),
};

/**
 * The reads whose 200 answer depends on the caller's tenant and one server's graph only (getServer: the
 * record of `findServerGraph`, shown to its owner), by the path parameter naming that server.
 */
const ANSWER_FROM_SERVER_GRAPH: Partial<Record<Operation, NonNullable<Route["answerFromServerGraph"]>>> = {
  getServer: (params) => params.id,
};

/** `/providers/{id}/tools/{toolID}` → `/providers/:id/tools/:toolID` (the router's syntax). */
export const routerPath = (template: string): string => template.replace(/\{([^{}]+)\}/g, ":$1");

/**
 * Every management route of the spec and of docs/api-rules.md §§8–10: the route list of @mcpsm/openapi (the
 * one the OpenAPI document describes, so the two cannot drift) with the handler of each operation.
 */
export const ROUTES: ReadonlyArray<Route> = MANAGEMENT_ROUTES.map((r) => ({
  method: r.method,
  path: routerPath(r.path),
  operation: r.operation,
  handle: (input) => Effect.zipRight(pathIds(input.params), HANDLERS[r.operation](input)),
  ...(ANSWER_FROM_SERVER_GRAPH[r.operation] === undefined
    ? {}
    : { answerFromServerGraph: ANSWER_FROM_SERVER_GRAPH[r.operation] }),
  ...(r.maxBodyBytes === undefined ? {} : { maxBodyBytes: r.maxBodyBytes }),
  ...(r.maxBodyDepth === undefined ? {} : { maxBodyDepth: r.maxBodyDepth }),
}));
