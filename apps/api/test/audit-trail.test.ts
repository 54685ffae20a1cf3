import { events } from "./support/audit-events.js";
import { ALL_SCOPES } from "@mcpsm/domain";
import type { AuditTargetKind } from "@mcpsm/domain/schemas";
import { type Operation, SCOPE_POLICY } from "@mcpsm/domain/use-cases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../src/http/route-table.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { expectInvalid, expectProblem, ID, TIMESTAMP } from "./support/problems.js";
import { createProvider, createServer, createTool, createVariable, uniq } from "./support/records.js";
import { callFor, makeRouteFixture, successStatus } from "./support/route-fixture.js";

// docs/api-rules.md §18, audit: driven from the route table, every successful write leaves exactly one event
// (operation, target, actor, request id, versions, names of the changed fields and never their values) and
// every refused write none; GET /audit-events pages newest first with the §11 rules and filters.

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

// biome-ignore lint/suspicious/noExplicitAny: events are read as JSON
type Json = any;

/** Every string of a request body that is not an id (ids may rightly name the target). */
const valuesOf = (node: unknown): Array<string> => {
  if (typeof node === "string") return node.length >= 4 && !ID.test(node) ? [node] : [];
  if (Array.isArray(node)) return node.flatMap(valuesOf);
  if (typeof node === "object" && node !== null) return Object.values(node).flatMap(valuesOf);
  return [];
};

/**
 * What each operation leaves in the audit trail on success: one event targeting this kind of record, or
 * nothing (`read`). Every operation of the route table must be here (the type says so, and the test
 * below fails naming any route that is not): a new write route cannot be added without its audit check.
 */
type Expectation = AuditTargetKind | ReadonlyArray<AuditTargetKind> | "read";
const AUDIT_EXPECTATIONS: { readonly [O in Operation]: Expectation } = {
  listServers: "read",
  createServer: "server",
  getServer: "read",
  updateServer: "server",
  deleteServer: "server",
  listServerTools: "read",
  addServerTool: "server",
  removeServerTool: "server",
  listServerResources: "read",
  addServerResource: "server",
  removeServerResource: "server",
  listServerPrompts: "read",
  addServerPrompt: "server",
  removeServerPrompt: "server",
  createServerToken: "token",
  listServerTokens: "read",
  getServerToken: "read",
  revokeServerToken: "token",
  listProviders: "read",
  createProvider: "provider",
  getProvider: "read",
  updateProvider: "provider",
  deleteProvider: "provider",
  importProvider: "provider",
  // A re-sync that changed one tool targets that tool (with the provider's versions); several, the provider.
  resyncProvider: ["provider", "tool"],
  listProviderTools: "read",
  createProviderTool: "tool",
  getProviderTool: "read",
  previewToolShape: "read",
  updateProviderTool: "tool",
  deleteProviderTool: "tool",
  listProviderPrompts: "read",
  createProviderPrompt: "prompt",
  getProviderPrompt: "read",
  updateProviderPrompt: "prompt",
  deleteProviderPrompt: "prompt",
  listProviderResources: "read",
  createProviderResource: "resource",
  getProviderResource: "read",
  updateProviderResource: "resource",
  deleteProviderResource: "resource",
  listVariables: "read",
  getVariable: "read",
  createVariable: "variable",
  updateVariable: "variable",
  deleteVariable: "variable",
  listCallerValues: "read",
  deleteCallerValue: "callerValue",
  listAuditEvents: "read",
  listProviderConnections: "read",
  deleteProviderConnection: "connection",
  exportServer: "read",
  importServer: "server",
  createGitConnection: "gitConnection",
  listGitConnections: "read",
  getGitConnection: "read",
  deleteGitConnection: "gitConnection",
  getServerGitSync: "read",
  listServerRevisions: "read",
  getServerRevision: "read",
  diffServerRevisions: "read",
  restoreServerRevision: "server",

  listServerCalls: "read",
  getServerUsage: "read",
  getTenantUsage: "read",

  getServerTool: "read",
  updateServerTool: "server",
  listApprovals: "read",
  // Deciding needs an approval a call asked for: tool-approval.test.ts checks its audit event.
  decideApproval: "read",
};
const expectationOf = (route: (typeof ROUTES)[number]): Expectation | undefined =>
  (AUDIT_EXPECTATIONS as Readonly<Record<string, Expectation>>)[route.operation];
/** The kinds of record a write's event may target. */
const targetKindsOf = (route: (typeof ROUTES)[number]): ReadonlyArray<string> => {
  const expected = expectationOf(route);
  return expected === undefined || expected === "read" ? [] : typeof expected === "string" ? [expected] : expected;
};

const label = (r: (typeof ROUTES)[number]) => `${r.method} ${r.path} (${r.operation})`;
const writeRoutes = ROUTES.filter((r) => expectationOf(r) !== "read" && expectationOf(r) !== undefined);
// A decision needs an approval a tool call asked for, which a route fixture cannot make: its audit event is
// checked by tool-approval.test.ts.
const readRoutes = ROUTES.filter((r) => expectationOf(r) === "read" && r.operation !== "decideApproval");

it("every route of the route table says what it leaves in the audit trail", () => {
  const missing = ROUTES.filter((r) => expectationOf(r) === undefined).map(label);
  expect(missing, "add these operations to AUDIT_EXPECTATIONS (audit-trail.test.ts)").toEqual([]);
  // A GET never writes; anything else that is called a read here must be one on purpose.
  for (const route of ROUTES) if (route.method === "GET") expect(expectationOf(route), label(route)).toBe("read");
});

describe.each(readRoutes.map((r) => [label(r), r] as const))("%s", (_label, route) => {
  it("a successful read records nothing", async () => {
    const owner = await svc.tenant("audit-read");
    const fixture = await makeRouteFixture(owner.api);
    const before = await events(owner.api, "?limit=1");
    const { path, body } = callFor(route, fixture);
    const res = await owner.api.request(route.method, path, body === undefined ? {} : { body });
    expect(res.status, res.text.slice(0, 300)).toBe(successStatus(route));
    expect((await events(owner.api, "?limit=1")).matchCount).toBe(before.matchCount);
  });
});

describe.each(writeRoutes.map((r) => [label(r), r] as const))("%s", (_label, route) => {
  it("a success records exactly one event: who, what, which request, versions and changed field names", async () => {
    const owner = await svc.tenant("audit");
    const fixture = await makeRouteFixture(owner.api);
    const before = await events(owner.api, "?limit=1");
    const { path, body } = callFor(route, fixture);
    const res = await owner.api.request(route.method, path, body === undefined ? {} : { body });
    expect(res.status, res.text.slice(0, 300)).toBe(successStatus(route));
    const after = await events(owner.api, "?limit=1000");
    expect(after.matchCount).toBe(before.matchCount + 1);
    const event = after.auditEvents[0];
    expect(event).toMatchObject({
      operation: route.operation,
      actor: { sub: owner.id, clientId: "" },
      requestId: res.headers.get("x-request-id"),
    });
    expect(targetKindsOf(route)).toContain(event.target.kind);
    expect(event.id).toMatch(ID);
    expect(event.at).toMatch(TIMESTAMP);
    expect(event.target.id).toMatch(ID);
    // The target is a record the route names, or one its answer holds (created or changed). A caller value
    // (docs/api-rules.md §23) is named by its principal on the wire; its own id is only the trail's.
    if (event.target.kind !== "callerValue")
      expect(path.split("/").includes(event.target.id) || (res.text ?? "").includes(event.target.id)).toBe(true);
    expect(Number.isInteger(event.versionBefore) && Number.isInteger(event.versionAfter)).toBe(true);
    for (const field of event.fields) expect(field).toMatch(/^[a-zA-Z0-9]+$/);
    // Deleting a record changes no field of it; removing a member changes the server's member list.
    if (route.method === "DELETE" && event.target.id === path.split("/").at(-1)) expect(event.fields).toEqual([]);
    if (route.operation.startsWith("removeServer")) expect(event.fields).toHaveLength(1);
    // Names, never values: nothing the request sent appears in the event.
    const text = JSON.stringify(event);
    for (const value of valuesOf(body)) expect(text).not.toContain(value);
  });

  it("a refused write records nothing (403 scope, 400 body, 404 foreign record)", async () => {
    const owner = await svc.tenant("audit-refused");
    const fixture = await makeRouteFixture(owner.api);
    const { matchCount } = await events(owner.api, "?limit=1");
    const { path, body } = callFor(route, fixture);
    const scope = SCOPE_POLICY[route.operation];
    const unscoped = svc.client(
      await svc.token(
        owner.id,
        ALL_SCOPES.filter((s) => s !== scope),
      ),
    );
    expectProblem(
      await unscoped.request(route.method, path, body === undefined ? {} : { body }),
      403,
      "PERMISSION_DENIED",
    );
    if (body !== undefined) expectInvalid(await owner.api.request(route.method, path, { body: { wrong: {} } }));
    const stranger = await svc.tenant("audit-stranger");
    const foreign = await stranger.api.request(route.method, path, body === undefined ? {} : { body });
    if (route.path.includes(":")) expectProblem(foreign, 404, "NOT_FOUND");
    expect((await events(owner.api, "?limit=1")).matchCount).toBe(matchCount);
    // The stranger's creates succeed in its own tenant, which is not the owner's trail.
    const strangers = await events(stranger.api, "?limit=1000");
    for (const e of strangers.auditEvents) expect(e.actor.sub).toBe(stranger.id);
  });
});

describe("what an event says", () => {
  let owner: Tenant;
  beforeAll(async () => {
    owner = await svc.tenant("audit-shape");
  });

  it("a server update names the changed fields and the revision it moved", async () => {
    const server = await createServer(owner.api);
    const res = await owner.api.patch(`/servers/${server.id}`, {
      server: { name: `New ${uniq()}`, description: "secret-free text" },
    });
    expect(res.status).toBe(200);
    const [event] = (await events(owner.api, `?targetID=${server.id}`)).auditEvents;
    expect(event).toMatchObject({
      operation: "updateServer",
      target: { kind: "server", id: server.id },
      versionBefore: 1,
      versionAfter: 2,
      fields: ["name", "description"],
    });
  });

  it("a tool write targets the tool and carries its provider's revisions", async () => {
    const provider = await createProvider(owner.api);
    const tool = await createTool(owner.api, provider.id);
    const [event] = (await events(owner.api, `?targetID=${tool.id}`)).auditEvents;
    expect(event).toMatchObject({
      operation: "createProviderTool",
      target: { kind: "tool", id: tool.id },
      versionBefore: 1,
      versionAfter: 2,
    });
    expect(event.fields).toEqual(expect.arrayContaining(["method", "path", "name"]));
  });

  it("a variable has no revision; a SECRET value change is named, never shown", async () => {
    const variable = await createVariable(owner.api, { type: "SECRET", value: `hush-${uniq()}-value` });
    const value = `hush-${uniq()}-newer`;
    expect((await owner.api.patch(`/variables/${variable.id}`, { variable: { value } })).status).toBe(200);
    expect((await owner.api.delete(`/variables/${variable.id}`)).status).toBe(204);
    const page = await events(owner.api, `?targetID=${variable.id}`);
    expect(page.auditEvents.map((e: Json) => [e.operation, e.versionBefore, e.versionAfter, e.fields])).toEqual([
      ["deleteVariable", 0, 0, []],
      ["updateVariable", 0, 0, ["value"]],
      ["createVariable", 0, 0, ["type", "name", "value"]],
    ]);
    expect(JSON.stringify(page)).not.toContain(value);
  });

  it("a deletion of a versioned record ends at version 0", async () => {
    const server = await createServer(owner.api);
    expect((await owner.api.delete(`/servers/${server.id}`)).status).toBe(204);
    const [event] = (await events(owner.api, `?targetID=${server.id}&operation=deleteServer`)).auditEvents;
    expect(event).toMatchObject({ versionBefore: 1, versionAfter: 0, fields: [] });
  });

  it("the request id is the caller's X-Request-Id", async () => {
    const requestId = `audit-req-${uniq()}`;
    const res = await owner.api.request("POST", "/variables", {
      body: { variable: { type: "ENV", name: `V_${uniq()}`, value: "x" } },
      headers: { "x-request-id": requestId },
    });
    expect(res.status).toBe(201);
    const [event] = (await events(owner.api, `?targetID=${res.body.variable.id}`)).auditEvents;
    expect(event.requestId).toBe(requestId);
  });
});
