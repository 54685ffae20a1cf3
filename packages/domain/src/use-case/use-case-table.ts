import type { Effect } from "effect";
import { listAuditEvents } from "../audit/audit-listing.js";
import type { DomainError } from "../errors/domain-errors.js";
import { exportServer } from "../export/export-use-cases.js";
import { importServer } from "../export/server-import.js";
import {
  createGitConnection,
  deleteGitConnection,
  getGitConnection,
  getServerGitSync,
  listGitConnections,
} from "../git-connection/git-connection-use-cases.js";
import {
  createProviderPrompt,
  deleteProviderPrompt,
  getProviderPrompt,
  listProviderPrompts,
  updateProviderPrompt,
} from "../prompt/prompt-use-cases.js";
import {
  createProvider,
  deleteProvider,
  getProvider,
  listProviders,
  updateProvider,
} from "../provider/provider-use-cases.js";
import {
  createProviderResource,
  deleteProviderResource,
  getProviderResource,
  listProviderResources,
  updateProviderResource,
} from "../resource/resource-use-cases.js";
import type { Operation } from "../scopes/scope-policy.js";
import {
  addServerPrompt,
  addServerResource,
  addServerTool,
  listServerPrompts,
  listServerResources,
  listServerTools,
  removeServerPrompt,
  removeServerResource,
  removeServerTool,
} from "../server/server-associations.js";
import { createServer, deleteServer, getServer, listServers, updateServer } from "../server/server-use-cases.js";
import {
  createServerToken,
  getServerToken,
  listServerTokens,
  revokeServerToken,
} from "../server-token/server-token-use-cases.js";
import type { Actor } from "../tenancy/actor.js";
import {
  createProviderTool,
  deleteProviderTool,
  getProviderTool,
  listProviderTools,
  updateProviderTool,
} from "../tool/tool-use-cases.js";
import {
  createVariable,
  deleteVariable,
  getVariable,
  listVariables,
  updateVariable,
} from "../variable/variable-use-cases.js";
import { deleteProviderConnection, listProviderConnections } from "../upstream-connection/connection-use-cases.js";
import type { DomainServices } from "./domain-services.js";

/** Any use case: a function of the actor and a typed input. */
// biome-ignore lint/suspicious/noExplicitAny: the table holds use cases of every input and output type
export type AnyUseCase = (actor: Actor, input: any) => Effect.Effect<unknown, DomainError, DomainServices>;

/** The operations whose use cases still take wire bodies (see @mcpsm/domain/openapi-import). */
export type WireOperation = "importProvider" | "resyncProvider";

/**
 * Every management use case under its operation name (the names of the scope policy and of the OpenAPI
 * operations); the type makes a missing one a compile error. The Promise facade is built from it. The
 * OpenAPI import and re-sync are not in it yet: they still take wire bodies.
 */
export const USE_CASES = {
  listServers,
  createServer,
  getServer,
  updateServer,
  deleteServer,
  listServerTools,
  addServerTool,
  removeServerTool,
  listServerResources,
  addServerResource,
  removeServerResource,
  listServerPrompts,
  addServerPrompt,
  removeServerPrompt,
  createServerToken,
  listServerTokens,
  getServerToken,
  revokeServerToken,
  listProviders,
  createProvider,
  getProvider,
  updateProvider,
  deleteProvider,
  listProviderTools,
  createProviderTool,
  getProviderTool,
  updateProviderTool,
  deleteProviderTool,
  listProviderPrompts,
  createProviderPrompt,
  getProviderPrompt,
  updateProviderPrompt,
  deleteProviderPrompt,
  listProviderResources,
  createProviderResource,
  getProviderResource,
  updateProviderResource,
  deleteProviderResource,
  listVariables,
  getVariable,
  createVariable,
  updateVariable,
  deleteVariable,
  listAuditEvents,
  listProviderConnections,
  deleteProviderConnection,
  createGitConnection,
  listGitConnections,
  getGitConnection,
  deleteGitConnection,
  getServerGitSync,
  exportServer,
  importServer,
} as const satisfies { readonly [O in Exclude<Operation, WireOperation>]: AnyUseCase };

/** The table's type: each operation's use case with its own input and output types. */
export type UseCases = typeof USE_CASES;
