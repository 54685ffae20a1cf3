import * as D from "@mcpsm/domain";
import type { Actor, Operation } from "@mcpsm/domain";
import { MANAGEMENT_ROUTES } from "@mcpsm/openapi";
import { Effect } from "effect";

/** What a route handler gets: the authenticated actor and the parsed request. */
export interface RouteInput {
  readonly actor: Actor;
  readonly params: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly query: D.ProviderListQuery;
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
export type AppServices = D.Storage | D.SecretCipher | D.PageTokenSigner | D.Quotas | D.OpenApiReader;

/** One management route: method, path (router syntax, `:id`), the operation (and so the scope) it is, and its handler. */
export interface Route {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path: string;
  readonly operation: Operation;
  readonly handle: (input: RouteInput) => Effect.Effect<Reply, D.DomainError, AppServices>;
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

type Run<A> = Effect.Effect<A, D.DomainError, AppServices>;

/** The use cases of a provider's tools, prompts or resources (see `providerChildUseCases` in the domain). */
interface ChildUseCases {
  readonly list: (actor: Actor, providerId: string) => Run<ReadonlyArray<unknown>>;
  readonly create: (actor: Actor, providerId: string, body: unknown) => Run<{ readonly id: string }>;
  readonly get: (actor: Actor, providerId: string, id: string) => Run<unknown>;
  readonly update: (actor: Actor, providerId: string, id: string, body: unknown) => Run<unknown>;
  readonly remove: (actor: Actor, providerId: string, id: string) => Run<void>;
}

type Handle = Route["handle"];

/** The handlers of a provider's tools, prompts or resources, which share their shape. */
const providerChildHandlers = (
  segment: "tools" | "prompts" | "resources",
  envelope: "tool" | "prompt" | "resource",
  param: "toolID" | "promptID" | "resourceID",
  useCases: ChildUseCases,
): Readonly<Record<"list" | "create" | "get" | "update" | "remove", Handle>> => ({
  list: ({ actor, params }) => Effect.map(useCases.list(actor, params.id!), (items) => ok({ [segment]: items })),
  create: ({ actor, params, body }) =>
    Effect.map(useCases.create(actor, params.id!, body), (rec) =>
      created({ [envelope]: rec }, `/providers/${params.id}/${segment}/${rec.id}`),
    ),
  get: ({ actor, params }) =>
    Effect.map(useCases.get(actor, params.id!, params[param]!), (rec) => ok({ [envelope]: rec })),
  update: ({ actor, params, body }) =>
    Effect.map(useCases.update(actor, params.id!, params[param]!, body), (rec) => ok({ [envelope]: rec })),
  remove: ({ actor, params }) => Effect.as(useCases.remove(actor, params.id!, params[param]!), noContent),
});

const tools = providerChildHandlers("tools", "tool", "toolID", D.toolUseCases);
const prompts = providerChildHandlers("prompts", "prompt", "promptID", D.promptUseCases);
const resources = providerChildHandlers("resources", "resource", "resourceID", D.resourceUseCases);

/** The handler of every operation (the type makes a missing one a compile error). */
const HANDLERS: { readonly [O in Operation]: Handle } = {
  listServers: ({ actor }) => Effect.map(D.listServers(actor), (servers) => ok({ servers })),
  createServer: ({ actor, body }) =>
    Effect.map(D.createServer(actor, body), (server) => created({ server }, `/servers/${server.id}`, server.version)),
  getServer: ({ actor, params }) =>
    Effect.map(D.getServer(actor, params.id!), (server) => ok({ server }, server.version)),
  updateServer: ({ actor, params, body, ifMatch }) =>
    Effect.map(D.updateServer(actor, params.id!, body, ifMatch), (server) => ok({ server }, server.version)),
  deleteServer: ({ actor, params, ifMatch }) => Effect.as(D.deleteServer(actor, params.id!, ifMatch), noContent),
  listServerTools: ({ actor, params }) => Effect.map(D.listServerTools(actor, params.id!), (tools) => ok({ tools })),
  addServerTool: ({ actor, params, body }) =>
    Effect.map(D.addServerTool(actor, params.id!, body), (tool) =>
      created({ tool }, `/servers/${params.id}/tools/${tool.id}`),
    ),
  removeServerTool: ({ actor, params }) => Effect.as(D.removeServerTool(actor, params.id!, params.toolID!), noContent),
  listServerResources: ({ actor, params }) =>
    Effect.map(D.serverResources.list(actor, params.id!), (resources) => ok({ resources })),
  addServerResource: ({ actor, params, body }) =>
    Effect.map(D.serverResources.add(actor, params.id!, body), (resource) =>
      created({ resource }, `/servers/${params.id}/resources/${resource.id}`),
    ),
  removeServerResource: ({ actor, params }) =>
    Effect.as(D.serverResources.remove(actor, params.id!, params.resourceID!), noContent),
  listServerPrompts: ({ actor, params }) =>
    Effect.map(D.serverPrompts.list(actor, params.id!), (prompts) => ok({ prompts })),
  addServerPrompt: ({ actor, params, body }) =>
    Effect.map(D.serverPrompts.add(actor, params.id!, body), (prompt) =>
      created({ prompt }, `/servers/${params.id}/prompts/${prompt.id}`),
    ),
  removeServerPrompt: ({ actor, params }) =>
    Effect.as(D.serverPrompts.remove(actor, params.id!, params.promptID!), noContent),
  createServerToken: ({ actor, params, body }) =>
    Effect.map(D.createServerToken(actor, params.id!, body), (token) =>
      created({ token }, `/servers/${params.id}/tokens/${token.id}`),
    ),
  listServerTokens: ({ actor, params }) =>
    Effect.map(D.listServerTokens(actor, params.id!), (tokens) => ok({ tokens })),
  getServerToken: ({ actor, params }) =>
    Effect.map(D.getServerToken(actor, params.id!, params.tokenID!), (token) => ok({ token })),
  revokeServerToken: ({ actor, params }) =>
    Effect.as(D.revokeServerToken(actor, params.id!, params.tokenID!), noContent),

  listProviders: ({ actor, query }) => Effect.map(D.listProviders(actor, query), ok),
  createProvider: ({ actor, body }) =>
    Effect.map(D.createProvider(actor, body), (provider) =>
      created({ provider }, `/providers/${provider.id}`, provider.version),
    ),
  getProvider: ({ actor, params }) =>
    Effect.map(D.getProvider(actor, params.id!), (provider) => ok({ provider }, provider.version)),
  updateProvider: ({ actor, params, body, ifMatch }) =>
    Effect.map(D.updateProvider(actor, params.id!, body, ifMatch), (provider) => ok({ provider }, provider.version)),
  deleteProvider: ({ actor, params, ifMatch }) => Effect.as(D.deleteProvider(actor, params.id!, ifMatch), noContent),
  importProvider: ({ actor, body }) =>
    Effect.map(D.importProvider(actor, body), ({ created: stored, result }) =>
      stored ? created(result, `/providers/${result.provider.id}`, result.provider.version) : ok(result),
    ),
  resyncProvider: ({ actor, params, body }) =>
    Effect.map(D.resyncProvider(actor, params.id!, body), (result) => ok(result, result.provider.version)),
  listProviderTools: tools.list,
  createProviderTool: tools.create,
  getProviderTool: tools.get,
  updateProviderTool: tools.update,
  deleteProviderTool: tools.remove,
  listProviderPrompts: prompts.list,
  createProviderPrompt: prompts.create,
  getProviderPrompt: prompts.get,
  updateProviderPrompt: prompts.update,
  deleteProviderPrompt: prompts.remove,
  listProviderResources: resources.list,
  createProviderResource: resources.create,
  getProviderResource: resources.get,
  updateProviderResource: resources.update,
  deleteProviderResource: resources.remove,

  listVariables: ({ actor }) => Effect.map(D.listVariables(actor), (variables) => ok({ variables })),
  createVariable: ({ actor, body }) =>
    Effect.map(D.createVariable(actor, body), (variable) => created({ variable }, `/variables/${variable.id}`)),
  getVariable: ({ actor, params }) => Effect.map(D.getVariable(actor, params.id!), (variable) => ok({ variable })),
  updateVariable: ({ actor, params, body }) =>
    Effect.map(D.updateVariable(actor, params.id!, body), (variable) => ok({ variable })),
  deleteVariable: ({ actor, params }) => Effect.as(D.deleteVariable(actor, params.id!), noContent),

  listAuditEvents: ({ actor, query }) => Effect.map(D.listAuditEvents(actor, query), ok),
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
  handle: HANDLERS[r.operation],
  ...(r.maxBodyBytes === undefined ? {} : { maxBodyBytes: r.maxBodyBytes }),
  ...(r.maxBodyDepth === undefined ? {} : { maxBodyDepth: r.maxBodyDepth }),
}));
