import { describe, expect, it } from "vitest";
import { ALL_SCOPES, SCOPES } from "../src/scopes/scope.js";
import { OPERATIONS, requiredScope, SCOPE_POLICY } from "../src/scopes/scope-policy.js";

describe("scope policy", () => {
  it("uses only known scopes", () => {
    for (const [operation, scope] of Object.entries(SCOPE_POLICY)) {
      expect(ALL_SCOPES, `${operation} → ${scope}`).toContain(scope);
    }
  });

  it("lists the 17 scopes of the spec, the contract's audit:read (§18), gitconnection:create (§17) and approval:decide (§20)", () => {
    expect(ALL_SCOPES).toHaveLength(20);
    expect(ALL_SCOPES).toContain("approval:decide");
    expect(ALL_SCOPES).toContain("audit:read");
    expect(ALL_SCOPES).toContain("gitconnection:create");
    expect(new Set(ALL_SCOPES).size).toBe(ALL_SCOPES.length);
    expect(ALL_SCOPES).toEqual(Object.keys(SCOPES));
  });

  it("maps updateServer to server:update", () => {
    expect(requiredScope("updateServer")).toBe("server:update");
  });

  it("matches the table of docs/api-rules.md §3", () => {
    const table = {
      listServers: "server:list",
      createServer: "server:create",
      getServer: "server:read",
      listServerTools: "server:read",
      addServerTool: "server:update",
      removeServerPrompt: "server:update",
      deleteServer: "server:delete",
      createServerToken: "server:create_token",
      listServerTokens: "server:read",
      getServerToken: "server:read",
      revokeServerToken: "server:create_token",
      listProviders: "provider:list",
      listProviderTools: "provider:list",
      listProviderResources: "provider:list",
      createProvider: "provider:create",
      createProviderTool: "provider:create",
      createProviderResource: "provider:create",
      getProvider: "provider:read",
      getProviderTool: "provider:read",
      listProviderPrompts: "provider:read",
      getProviderPrompt: "provider:read",
      updateProvider: "provider:update",
      updateProviderResource: "provider:update",
      createProviderPrompt: "provider:update",
      deleteProviderPrompt: "provider:update",
      deleteProvider: "provider:delete",
      deleteProviderTool: "provider:delete",
      listVariables: "variable:list",
      getVariable: "variable:list",
      createVariable: "variable:create",
      updateVariable: "variable:update",
      deleteVariable: "variable:delete",
    } as const;
    // docs/api-rules.md §17.
    const git = {
      createGitConnection: "gitconnection:create",
      listGitConnections: "gitconnection:list",
      getGitConnection: "gitconnection:list",
      deleteGitConnection: "gitconnection:delete",
      getServerGitSync: "server:read",
    } as const;
    for (const [operation, scope] of Object.entries(git))
      expect(requiredScope(operation as keyof typeof git), operation).toBe(scope);
    for (const [operation, scope] of Object.entries(table))
      expect(requiredScope(operation as keyof typeof table), operation).toBe(scope);
  });

  it("covers every operation the OPERATIONS list names; only git connection operations need a git scope", () => {
    expect(OPERATIONS).toEqual(Object.keys(SCOPE_POLICY));
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(43);
    for (const operation of OPERATIONS)
      if (!/GitConnection/.test(operation)) expect(requiredScope(operation)).not.toMatch(/^gitconnection:/);
  });

  it("never lets a read or list operation require a write scope", () => {
    // Pending approvals are listed for the people who decide them (docs/api-rules.md §20): approval:decide.
    for (const operation of OPERATIONS)
      if (/^(list|get)/.test(operation) && operation !== "listApprovals")
        expect(requiredScope(operation), operation).toMatch(/:(list|read)$/);
    expect(requiredScope("listApprovals")).toBe("approval:decide");
  });
});
