import type { Operation } from "@mcpsm/domain/use-cases";
import { MANAGEMENT_ROUTES } from "@mcpsm/openapi";
import type { Route } from "../../src/http/route-table.js";
import type { Client } from "./harness.js";
import {
  createGitConnection,
  createPrompt,
  createProvider,
  createResource,
  createServer,
  createToken,
  createTool,
  createVariable,
  promptWrite,
  providerWrite,
  resourceWrite,
  serverWrite,
  gitConnectionWrite,
  toolWrite,
  uniq,
  variableWrite,
} from "./records.js";

/**
 * A tenant's records on which every management route can succeed once:
 * provider P (tools T, T2; prompt Pr; resource R), provider P2 (tool T3, prompt Pr2, resource R2) that no
 * server uses, server S (P with T only, R, Pr) with token K, variable V, and git connection G.
 */
export interface RouteFixture {
  readonly P: string;
  readonly T: string;
  readonly T2: string;
  readonly Pr: string;
  readonly R: string;
  readonly P2: string;
  readonly T3: string;
  readonly Pr2: string;
  readonly R2: string;
  readonly S: string;
  readonly K: string;
  readonly V: string;
  /** An upstream OAuth connection of the tenant to P (a well-formed unknown id when the client cannot seed one). */
  readonly C: string;
  /** A git connection no server uses. */
  readonly G: string;
  /** The principal of a caller value of V (docs/api-rules.md §23; a well-formed unknown one when none can be seeded). */
  readonly CV: string;
}

export const makeRouteFixture = async (
  api: Client,
  providerOverrides: Record<string, unknown> = {},
): Promise<RouteFixture> => {
  const P = (await createProvider(api, providerOverrides)).id;
  const T = (await createTool(api, P)).id;
  const T2 = (await createTool(api, P)).id;
  const Pr = (await createPrompt(api, P)).id;
  const R = (await createResource(api, P)).id;
  const P2 = (await createProvider(api, providerOverrides)).id;
  const T3 = (await createTool(api, P2)).id;
  const Pr2 = (await createPrompt(api, P2)).id;
  const R2 = (await createResource(api, P2)).id;
  const S = (
    await createServer(api, {
      providers: [{ id: P, tools: [{ id: T }] }],
      resources: [{ id: R }],
      prompts: [{ id: Pr }],
    })
  ).id;
  const K = (await createToken(api, S)).id;
  const V = (await createVariable(api)).id;
  const C = api.seedConnection === undefined ? "Nconnection" : await api.seedConnection(P);
  const G = (await createGitConnection(api)).id;
  const CV = api.seedCallerValue === undefined ? "oauth:nobody" : await api.seedCallerValue(V);
  return { P, T, T2, Pr, R, P2, T3, Pr2, R2, S, K, V, C, G, CV };
};

/** Path parameters and a valid body with which an operation succeeds on a fresh fixture. */
interface Call {
  readonly params: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/** A one-operation OpenAPI description under a fresh title. */
const importDocument = () => ({
  openapi: "3.0.3",
  info: { title: `Imported ${uniq()}`, version: "1" },
  servers: [{ url: "https://api.imported.example" }],
  paths: { "/things": { get: { operationId: "listImportedThings" } } },
});

/**
 * A server export document (docs/api-rules.md §16) under a fresh name, without providers: importing it needs
 * `server:create` only (creating providers would need `provider:create` too).
 */
const serverDocument = () => ({
  format: "mcpsm.server.v1",
  server: { name: `Imported server ${uniq()}`, description: "imported" },
  providers: [],
  variables: [],
});

const CALLS: { readonly [O in Operation]: (f: RouteFixture) => Call } = {
  listServers: () => ({ params: {} }),
  createServer: () => ({ params: {}, body: { server: serverWrite() } }),
  getServer: (f) => ({ params: { id: f.S } }),
  updateServer: (f) => ({ params: { id: f.S }, body: { server: { name: `Renamed ${uniq()}` } } }),
  deleteServer: (f) => ({ params: { id: f.S } }),
  listServerTools: (f) => ({ params: { id: f.S } }),
  addServerTool: (f) => ({ params: { id: f.S }, body: { tool: { providerID: f.P, toolID: f.T2 } } }),
  removeServerTool: (f) => ({ params: { id: f.S, toolID: f.T } }),
  listServerResources: (f) => ({ params: { id: f.S } }),
  addServerResource: (f) => ({ params: { id: f.S }, body: { resource: { resourceID: f.R2 } } }),
  removeServerResource: (f) => ({ params: { id: f.S, resourceID: f.R } }),
  listServerPrompts: (f) => ({ params: { id: f.S } }),
  addServerPrompt: (f) => ({ params: { id: f.S }, body: { prompt: { promptID: f.Pr2 } } }),
  removeServerPrompt: (f) => ({ params: { id: f.S, promptID: f.Pr } }),
  createServerToken: (f) => ({ params: { id: f.S }, body: { token: { name: `token ${uniq()}` } } }),
  listServerTokens: (f) => ({ params: { id: f.S } }),
  getServerToken: (f) => ({ params: { id: f.S, tokenID: f.K } }),
  revokeServerToken: (f) => ({ params: { id: f.S, tokenID: f.K } }),
  listProviders: () => ({ params: {} }),
  createProvider: () => ({ params: {}, body: { provider: providerWrite() } }),
  getProvider: (f) => ({ params: { id: f.P } }),
  updateProvider: (f) => ({ params: { id: f.P }, body: { provider: { description: `changed ${uniq()}` } } }),
  deleteProvider: (f) => ({ params: { id: f.P2 } }),
  importProvider: () => ({ params: {}, body: { import: { document: importDocument() } } }),
  resyncProvider: (f) => ({ params: { id: f.P }, body: { import: { document: importDocument() } } }),
  listProviderTools: (f) => ({ params: { id: f.P } }),
  createProviderTool: (f) => ({ params: { id: f.P }, body: { tool: toolWrite() } }),
  getProviderTool: (f) => ({ params: { id: f.P, toolID: f.T } }),
  updateProviderTool: (f) => ({ params: { id: f.P, toolID: f.T }, body: { tool: { title: `Title ${uniq()}` } } }),
  deleteProviderTool: (f) => ({ params: { id: f.P2, toolID: f.T3 } }),
  previewToolShape: (f) => ({ params: { id: f.P, toolID: f.T }, body: { sample: { items: [1, 2, 3] } } }),
  listProviderPrompts: (f) => ({ params: { id: f.P } }),
  createProviderPrompt: (f) => ({ params: { id: f.P }, body: { prompt: promptWrite() } }),
  getProviderPrompt: (f) => ({ params: { id: f.P, promptID: f.Pr } }),
  updateProviderPrompt: (f) => ({
    params: { id: f.P, promptID: f.Pr },
    body: { prompt: { description: `d ${uniq()}` } },
  }),
  deleteProviderPrompt: (f) => ({ params: { id: f.P2, promptID: f.Pr2 } }),
  listProviderResources: (f) => ({ params: { id: f.P } }),
  createProviderResource: (f) => ({ params: { id: f.P }, body: { resource: resourceWrite() } }),
  getProviderResource: (f) => ({ params: { id: f.P, resourceID: f.R } }),
  updateProviderResource: (f) => ({ params: { id: f.P, resourceID: f.R }, body: { resource: { size: 99 } } }),
  deleteProviderResource: (f) => ({ params: { id: f.P2, resourceID: f.R2 } }),
  listVariables: () => ({ params: {} }),
  getVariable: (f) => ({ params: { id: f.V } }),
  createVariable: () => ({ params: {}, body: { variable: variableWrite() } }),
  updateVariable: (f) => ({ params: { id: f.V }, body: { variable: { value: `v ${uniq()}` } } }),
  deleteVariable: (f) => ({ params: { id: f.V } }),
  listAuditEvents: () => ({ params: {} }),
  listProviderConnections: (f) => ({ params: { id: f.P } }),
  deleteProviderConnection: (f) => ({ params: { id: f.P, connectionID: f.C } }),
  listCallerValues: (f) => ({ params: { id: f.V } }),
  deleteCallerValue: (f) => ({ params: { id: f.V, principal: f.CV } }),
  exportServer: (f) => ({ params: { id: f.S } }),
  importServer: () => ({ params: {}, body: serverDocument() }),
  createGitConnection: () => ({ params: {}, body: { gitConnection: gitConnectionWrite() } }),
  listGitConnections: () => ({ params: {} }),
  getGitConnection: (f) => ({ params: { id: f.G } }),
  deleteGitConnection: (f) => ({ params: { id: f.G } }),
  getServerGitSync: (f) => ({ params: { id: f.S } }),
  listServerRevisions: (f) => ({ params: { id: f.S } }),
  getServerRevision: (f) => ({ params: { id: f.S, version: "1" } }),
  diffServerRevisions: (f) => ({ params: { id: f.S, version: "1" } }),
  restoreServerRevision: (f) => ({ params: { id: f.S, version: "1" }, body: { server: {} } }),

  listServerCalls: (f) => ({ params: { id: f.S } }),
  getServerUsage: (f) => ({ params: { id: f.S } }),
  getTenantUsage: () => ({ params: {} }),

  getServerTool: (f) => ({ params: { id: f.S, toolID: f.T } }),
  updateServerTool: (f) => ({ params: { id: f.S, toolID: f.T }, body: { tool: { description: "here" } } }),
  listApprovals: () => ({ params: {} }),
  decideApproval: (f) => ({ params: { approvalID: f.S }, body: { decision: "DENY" } }),
};

/** The concrete path of `route` with its parameters filled in. */
export const fillPath = (path: string, params: Readonly<Record<string, string>>): string =>
  path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for :${name} of ${path}`);
    return value;
  });

/** The request that performs `route` successfully on fixture `f`. */
export const callFor = (route: Route, f: RouteFixture): { readonly path: string; readonly body?: unknown } => {
  const call = CALLS[route.operation](f);
  return { path: fillPath(route.path, call.params), ...(call.body === undefined ? {} : { body: call.body }) };
};

/** The documented success status of a route (docs/api-rules.md §5; a POST creates, 201, except a re-sync, 200). */
export const successStatus = (route: Route): number =>
  MANAGEMENT_ROUTES.find((r) => r.operation === route.operation)?.status ??
  (route.method === "POST" ? 201 : route.method === "DELETE" ? 204 : 200);

export const hasOperationCall = (operation: string): boolean => operation in CALLS;
