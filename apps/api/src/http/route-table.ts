import * as D from "@mcpsm/domain";
import type { Actor, Operation } from "@mcpsm/domain";
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
export type AppServices = D.Storage | D.SecretCipher | D.PageTokenSigner | D.Quotas;

/** One management route: method, path, the operation (and so the scope) it is, and its handler. */
export interface Route {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path: string;
  readonly operation: Operation;
  readonly handle: (input: RouteInput) => Effect.Effect<Reply, D.DomainError, AppServices>;
}

const ok = (body: unknown, version?: number): Reply => ({ status: 200, body, ...(version === undefined ? {} : { version }) });
const created = (body: unknown, location: string, version?: number): Reply => ({
  status: 201,
  body,
  location,
  ...(version === undefined ? {} : { version }),
});
const noContent: Reply = { status: 204 };

const route = (method: Route["method"], path: string, operation: Operation, handle: Route["handle"]): Route => ({
  method,
  path,
  operation,
  handle,
});

type Run<A> = Effect.Effect<A, D.DomainError, AppServices>;

/** The use cases of a provider's tools, prompts or resources (see `providerChildUseCases` in the domain). */
interface ChildUseCases {
  readonly list: (actor: Actor, providerId: string) => Run<ReadonlyArray<unknown>>;
  readonly create: (actor: Actor, providerId: string, body: unknown) => Run<{ readonly id: string }>;
  readonly get: (actor: Actor, providerId: string, id: string) => Run<unknown>;
  readonly update: (actor: Actor, providerId: string, id: string, body: unknown) => Run<unknown>;
  readonly remove: (actor: Actor, providerId: string, id: string) => Run<void>;
}

/** The management child collections of a provider, which share their shape. */
const providerChildRoutes = (
  segment: "tools" | "prompts" | "resources",
  envelope: "tool" | "prompt" | "resource",
  useCases: ChildUseCases,
  ops: { list: Operation; create: Operation; get: Operation; update: Operation; remove: Operation },
): ReadonlyArray<Route> => {
  const base = `/providers/:id/${segment}`;
  const child = `${base}/:childID`;
  return [
    route("GET", base, ops.list, ({ actor, params }) =>
      Effect.map(useCases.list(actor, params.id!), (items) => ok({ [segment]: items })),
    ),
    route("POST", base, ops.create, ({ actor, params, body }) =>
      Effect.map(useCases.create(actor, params.id!, body), (rec) =>
        created({ [envelope]: rec }, `/providers/${params.id}/${segment}/${rec.id}`),
      ),
    ),
    route("GET", child, ops.get, ({ actor, params }) =>
      Effect.map(useCases.get(actor, params.id!, params.childID!), (rec) => ok({ [envelope]: rec })),
    ),
    route("PATCH", child, ops.update, ({ actor, params, body }) =>
      Effect.map(useCases.update(actor, params.id!, params.childID!, body), (rec) => ok({ [envelope]: rec })),
    ),
    route("DELETE", child, ops.remove, ({ actor, params }) =>
      Effect.as(useCases.remove(actor, params.id!, params.childID!), noContent),
    ),
  ];
};

/** Every management route of the spec and of API-CONTRACT.md §§8–10. */
export const ROUTES: ReadonlyArray<Route> = [
  route("GET", "/servers", "listServers", ({ actor }) => Effect.map(D.listServers(actor), (servers) => ok({ servers }))),
  route("POST", "/servers", "createServer", ({ actor, body }) =>
    Effect.map(D.createServer(actor, body), (server) => created({ server }, `/servers/${server.id}`, server.version)),
  ),
  route("GET", "/servers/:id", "getServer", ({ actor, params }) =>
    Effect.map(D.getServer(actor, params.id!), (server) => ok({ server }, server.version)),
  ),
  route("PATCH", "/servers/:id", "updateServer", ({ actor, params, body, ifMatch }) =>
    Effect.map(D.updateServer(actor, params.id!, body, ifMatch), (server) => ok({ server }, server.version)),
  ),
  route("DELETE", "/servers/:id", "deleteServer", ({ actor, params, ifMatch }) =>
    Effect.as(D.deleteServer(actor, params.id!, ifMatch), noContent),
  ),
  route("GET", "/servers/:id/tools", "listServerTools", ({ actor, params }) =>
    Effect.map(D.listServerTools(actor, params.id!), (tools) => ok({ tools })),
  ),
  route("POST", "/servers/:id/tools", "addServerTool", ({ actor, params, body }) =>
    Effect.map(D.addServerTool(actor, params.id!, body), (tool) =>
      created({ tool }, `/servers/${params.id}/tools/${tool.id}`),
    ),
  ),
  route("DELETE", "/servers/:id/tools/:toolID", "removeServerTool", ({ actor, params }) =>
    Effect.as(D.removeServerTool(actor, params.id!, params.toolID!), noContent),
  ),
  route("GET", "/servers/:id/resources", "listServerResources", ({ actor, params }) =>
    Effect.map(D.serverResources.list(actor, params.id!), (resources) => ok({ resources })),
  ),
  route("POST", "/servers/:id/resources", "addServerResource", ({ actor, params, body }) =>
    Effect.map(D.serverResources.add(actor, params.id!, body), (resource) =>
      created({ resource }, `/servers/${params.id}/resources/${resource.id}`),
    ),
  ),
  route("DELETE", "/servers/:id/resources/:resourceID", "removeServerResource", ({ actor, params }) =>
    Effect.as(D.serverResources.remove(actor, params.id!, params.resourceID!), noContent),
  ),
  route("GET", "/servers/:id/prompts", "listServerPrompts", ({ actor, params }) =>
    Effect.map(D.serverPrompts.list(actor, params.id!), (prompts) => ok({ prompts })),
  ),
  route("POST", "/servers/:id/prompts", "addServerPrompt", ({ actor, params, body }) =>
    Effect.map(D.serverPrompts.add(actor, params.id!, body), (prompt) =>
      created({ prompt }, `/servers/${params.id}/prompts/${prompt.id}`),
    ),
  ),
  route("DELETE", "/servers/:id/prompts/:promptID", "removeServerPrompt", ({ actor, params }) =>
    Effect.as(D.serverPrompts.remove(actor, params.id!, params.promptID!), noContent),
  ),
  route("POST", "/servers/:id/tokens", "createServerToken", ({ actor, params, body }) =>
    Effect.map(D.createServerToken(actor, params.id!, body), (token) =>
      created({ token }, `/servers/${params.id}/tokens/${token.id}`),
    ),
  ),
  route("GET", "/servers/:id/tokens", "listServerTokens", ({ actor, params }) =>
    Effect.map(D.listServerTokens(actor, params.id!), (tokens) => ok({ tokens })),
  ),
  route("GET", "/servers/:id/tokens/:tokenID", "getServerToken", ({ actor, params }) =>
    Effect.map(D.getServerToken(actor, params.id!, params.tokenID!), (token) => ok({ token })),
  ),
  route("DELETE", "/servers/:id/tokens/:tokenID", "revokeServerToken", ({ actor, params }) =>
    Effect.as(D.revokeServerToken(actor, params.id!, params.tokenID!), noContent),
  ),

  route("GET", "/providers", "listProviders", ({ actor, query }) => Effect.map(D.listProviders(actor, query), ok)),
  route("POST", "/providers", "createProvider", ({ actor, body }) =>
    Effect.map(D.createProvider(actor, body), (provider) =>
      created({ provider }, `/providers/${provider.id}`, provider.version),
    ),
  ),
  route("GET", "/providers/:id", "getProvider", ({ actor, params }) =>
    Effect.map(D.getProvider(actor, params.id!), (provider) => ok({ provider }, provider.version)),
  ),
  route("PATCH", "/providers/:id", "updateProvider", ({ actor, params, body, ifMatch }) =>
    Effect.map(D.updateProvider(actor, params.id!, body, ifMatch), (provider) => ok({ provider }, provider.version)),
  ),
  route("DELETE", "/providers/:id", "deleteProvider", ({ actor, params, ifMatch }) =>
    Effect.as(D.deleteProvider(actor, params.id!, ifMatch), noContent),
  ),
  ...providerChildRoutes("tools", "tool", D.toolUseCases, {
    list: "listProviderTools",
    create: "createProviderTool",
    get: "getProviderTool",
    update: "updateProviderTool",
    remove: "deleteProviderTool",
  }),
  ...providerChildRoutes("prompts", "prompt", D.promptUseCases, {
    list: "listProviderPrompts",
    create: "createProviderPrompt",
    get: "getProviderPrompt",
    update: "updateProviderPrompt",
    remove: "deleteProviderPrompt",
  }),
  ...providerChildRoutes("resources", "resource", D.resourceUseCases, {
    list: "listProviderResources",
    create: "createProviderResource",
    get: "getProviderResource",
    update: "updateProviderResource",
    remove: "deleteProviderResource",
  }),

  route("GET", "/variables", "listVariables", ({ actor }) =>
    Effect.map(D.listVariables(actor), (variables) => ok({ variables })),
  ),
  route("POST", "/variables", "createVariable", ({ actor, body }) =>
    Effect.map(D.createVariable(actor, body), (variable) => created({ variable }, `/variables/${variable.id}`)),
  ),
  route("GET", "/variables/:id", "getVariable", ({ actor, params }) =>
    Effect.map(D.getVariable(actor, params.id!), (variable) => ok({ variable })),
  ),
  route("PATCH", "/variables/:id", "updateVariable", ({ actor, params, body }) =>
    Effect.map(D.updateVariable(actor, params.id!, body), (variable) => ok({ variable })),
  ),
  route("DELETE", "/variables/:id", "deleteVariable", ({ actor, params }) =>
    Effect.as(D.deleteVariable(actor, params.id!), noContent),
  ),
];
