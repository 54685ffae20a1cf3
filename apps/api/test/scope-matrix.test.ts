import { ALL_SCOPES } from "@mcpsm/domain";
import { OPERATIONS, SCOPE_POLICY } from "@mcpsm/domain/use-cases";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../src/http/route-table.js";
import { serviceForFile } from "./support/file-service.js";
import { expectProblem } from "./support/problems.js";
import { fetchRecord } from "./support/records.js";
import { callFor, hasOperationCall, makeRouteFixture, successStatus } from "./support/route-fixture.js";

// docs/api-rules.md §3, generated from the route table and SCOPE_POLICY: every route refuses a token that
// has every scope but its own (403 naming the scope, nothing changed), and a token with only its own scope
// performs the operation.

const world = serviceForFile({ owner: "scopes" });

const label = (r: (typeof ROUTES)[number]) => `${r.method} ${r.path} (${r.operation} → ${SCOPE_POLICY[r.operation]})`;

describe("the route table and the scope policy", () => {
  it("every operation of the policy has exactly one route, and every route one operation", () => {
    const operations = ROUTES.map((r) => r.operation);
    expect(new Set(operations).size).toBe(operations.length);
    expect([...operations].sort()).toEqual([...OPERATIONS].sort());
    for (const operation of OPERATIONS) expect(hasOperationCall(operation)).toBe(true);
  });

  it("the policy follows the table of docs/api-rules.md §3 for the spec's operations", () => {
    expect(SCOPE_POLICY).toMatchObject({
      listServers: "server:list",
      createServer: "server:create",
      getServer: "server:read",
      updateServer: "server:update",
      deleteServer: "server:delete",
      createServerToken: "server:create_token",
      listServerTokens: "server:read",
      getServerToken: "server:read",
      revokeServerToken: "server:create_token",
      listProviders: "provider:list",
      createProvider: "provider:create",
      getProvider: "provider:read",
      updateProvider: "provider:update",
      deleteProvider: "provider:delete",
      createProviderPrompt: "provider:update",
      getProviderPrompt: "provider:read",
      listVariables: "variable:list",
      createVariable: "variable:create",
      updateVariable: "variable:update",
      deleteVariable: "variable:delete",
    });
    // docs/api-rules.md §16 (an import that creates providers or their members needs provider:create too).
    expect(SCOPE_POLICY).toMatchObject({ exportServer: "server:read", importServer: "server:create" });
  });
});

describe.each(ROUTES.map((r) => [label(r), r] as const))("%s", (_label, route) => {
  const scope = SCOPE_POLICY[route.operation];

  it("refuses a token with every other scope: 403 naming the scope, and changes nothing", async () => {
    const fixture = await makeRouteFixture(world.owner.api);
    const serverBefore = await fetchRecord(world.owner.api, `/servers/${fixture.S}`, "server");
    const providerBefore = await fetchRecord(world.owner.api, `/providers/${fixture.P}`, "provider");
    const api = world.svc.client(
      await world.svc.token(
        world.owner.id,
        ALL_SCOPES.filter((s) => s !== scope),
      ),
    );
    const { path, body } = callFor(route, fixture);
    const res = await api.request(route.method, path, body === undefined ? {} : { body });
    const problem = expectProblem(res, 403, "PERMISSION_DENIED");
    expect(res.headers.get("www-authenticate")).toBe(`Bearer error="insufficient_scope", scope="${scope}"`);
    expect(problem.detail).toContain(scope);
    expect(await fetchRecord(world.owner.api, `/servers/${fixture.S}`, "server")).toEqual(serverBefore);
    expect(await fetchRecord(world.owner.api, `/providers/${fixture.P}`, "provider")).toEqual(providerBefore);
  });

  it("performs the operation with a token holding only that scope", async () => {
    const fixture = await makeRouteFixture(world.owner.api);
    const api = world.svc.client(await world.svc.token(world.owner.id, [scope]));
    const { path, body } = callFor(route, fixture);
    const res = await api.request(route.method, path, body === undefined ? {} : { body });
    // No fixture can make a call wait for approval: the scope is accepted and the unknown approval is 404
    // (tool-approval.test.ts decides real ones).
    const expected = route.operation === "decideApproval" ? 404 : successStatus(route);
    expect(res.status, `${res.status} ${res.text.slice(0, 400)}`).toBe(expected);
  });
});

describe("tokens with no management scope", () => {
  it("a token with no scope, or only the git connection scopes, is refused everywhere else with 403", async () => {
    const fixture = await makeRouteFixture(world.owner.api);
    for (const scopes of [[], ["gitconnection:list", "gitconnection:delete"]]) {
      const api = world.svc.client(await world.svc.token(world.owner.id, scopes));
      for (const route of ROUTES) {
        // The git connection scopes are management scopes since docs/api-rules.md §17: their own routes answer.
        if ((scopes as ReadonlyArray<string>).includes(SCOPE_POLICY[route.operation])) continue;
        const { path, body } = callFor(route, fixture);
        const res = await api.request(route.method, path, body === undefined ? {} : { body });
        expectProblem(res, 403, "PERMISSION_DENIED");
      }
    }
  });
});
