import type { Scope } from "./scope.js";

/**
 * The operation → scope policy of docs/api-rules.md §3, as data. Every use case of the same name checks
 * it first (`authorize`); the tests iterate over it to prove each operation refuses a token without its scope.
 */
export const SCOPE_POLICY = {
  listServers: "server:list",
  createServer: "server:create",
  getServer: "server:read",
  updateServer: "server:update",
  deleteServer: "server:delete",
  listServerRevisions: "server:read",
  getServerRevision: "server:read",
  diffServerRevisions: "server:read",
  restoreServerRevision: "server:update",
  listServerTools: "server:read",
  addServerTool: "server:update",
  removeServerTool: "server:update",
  getServerTool: "server:read",
  updateServerTool: "server:update",
  listServerResources: "server:read",
  addServerResource: "server:update",
  removeServerResource: "server:update",
  listServerPrompts: "server:read",
  addServerPrompt: "server:update",
  removeServerPrompt: "server:update",
  createServerToken: "server:create_token",
  listServerTokens: "server:read",
  getServerToken: "server:read",
  revokeServerToken: "server:create_token",
  listProviders: "provider:list",
  createProvider: "provider:create",
  getProvider: "provider:read",
  updateProvider: "provider:update",
  deleteProvider: "provider:delete",
  importProvider: "provider:create",
  resyncProvider: "provider:update",
  listProviderTools: "provider:list",
  createProviderTool: "provider:create",
  getProviderTool: "provider:read",
  updateProviderTool: "provider:update",
  deleteProviderTool: "provider:delete",
  previewToolShape: "provider:read",
  listProviderPrompts: "provider:read",
  createProviderPrompt: "provider:update",
  getProviderPrompt: "provider:read",
  updateProviderPrompt: "provider:update",
  deleteProviderPrompt: "provider:update",
  listProviderResources: "provider:list",
  createProviderResource: "provider:create",
  getProviderResource: "provider:read",
  updateProviderResource: "provider:update",
  deleteProviderResource: "provider:delete",
  listVariables: "variable:list",
  getVariable: "variable:list",
  createVariable: "variable:create",
  updateVariable: "variable:update",
  deleteVariable: "variable:delete",
  listCallerValues: "variable:list",
  deleteCallerValue: "variable:update",
  listAuditEvents: "audit:read",
  listProviderConnections: "provider:read",
  deleteProviderConnection: "provider:update",
  createGitConnection: "gitconnection:create",
  listGitConnections: "gitconnection:list",
  getGitConnection: "gitconnection:list",
  deleteGitConnection: "gitconnection:delete",
  getServerGitSync: "server:read",
  exportServer: "server:read",
  listServerCalls: "server:read",
  getServerUsage: "server:read",
  getTenantUsage: "server:list",
  importServer: "server:create",
  listApprovals: "approval:decide",
  decideApproval: "approval:decide",
} as const satisfies Record<string, Scope>;

/** The name of a management operation. */
export type Operation = keyof typeof SCOPE_POLICY;

/** Every operation name. */
export const OPERATIONS = Object.keys(SCOPE_POLICY) as ReadonlyArray<Operation>;

/** The scope an operation requires. */
export const requiredScope = (operation: Operation): Scope => SCOPE_POLICY[operation];
