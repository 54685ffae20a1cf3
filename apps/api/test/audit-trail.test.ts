import { ALL_SCOPES } from "@mcpsm/domain";
import { Storage } from "@mcpsm/domain/storage";
import type { AuditTargetKind } from "@mcpsm/domain/schemas";
import { type Operation, pruneAuditEvents, SCOPE_POLICY } from "@mcpsm/domain/use-cases";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import { Effect, ManagedRuntime } from "effect";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../src/http/route-table.js";
import { startAuditRetention } from "../src/operations/audit-retention.js";
import { type Client, startTestService, type Tenant, type TestService } from "./support/harness.js";
import { expectInvalid, expectProblem, ID, TIMESTAMP } from "./support/problems.js";
import { createProvider, createServer, createTool, createVariable, unknownId, uniq } from "./support/records.js";
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

const events = async (
  api: Client,
  query = "",
): Promise<{ auditEvents: Array<Json>; matchCount: number; nextToken: string }> => {
  const res = await api.get(`/audit-events${query}`);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.body;
};

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

describe("GET /audit-events", () => {
  let owner: Tenant;
  const ids: Array<string> = [];
  beforeAll(async () => {
    owner = await svc.tenant("audit-list");
    for (let i = 0; i < 5; i++) ids.push((await createVariable(owner.api)).id);
  });

  it("lists the tenant's events newest first, in pages that neither skip nor repeat", async () => {
    const seen: Array<string> = [];
    let token = "";
    for (let round = 0; round < 10; round++) {
      const page = await events(owner.api, `?limit=2${token === "" ? "" : `&token=${encodeURIComponent(token)}`}`);
      expect(page.matchCount).toBe(5);
      seen.push(...page.auditEvents.map((e: Json) => e.target.id));
      token = page.nextToken;
      if (token === "") break;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it("filters by targetID, operation and since, combined", async () => {
    expect((await events(owner.api, `?targetID=${ids[2]}`)).auditEvents.map((e: Json) => e.target.id)).toEqual([
      ids[2],
    ]);
    expect((await events(owner.api, "?operation=createVariable")).matchCount).toBe(5);
    expect((await events(owner.api, "?operation=deleteServer")).matchCount).toBe(0);
    const all = (await events(owner.api)).auditEvents;
    const since = all[1].at;
    const recent = await events(owner.api, `?since=${encodeURIComponent(since)}&operation=createVariable`);
    expect(recent.auditEvents.every((e: Json) => e.at >= since)).toBe(true);
    expect(recent.matchCount).toBeGreaterThanOrEqual(2);
    expect((await events(owner.api, "?since=2999-01-01T00:00:00Z")).matchCount).toBe(0);
  });

  it("never shows another tenant's events", async () => {
    const other = await svc.tenant("audit-other");
    expect((await events(other.api)).matchCount).toBe(0);
    expect((await events(other.api, `?targetID=${ids[0]}`)).matchCount).toBe(0);
  });

  it("refuses bad parameters with 400 naming each", async () => {
    const res = await owner.api.get("/audit-events?limit=0&operation=dropTables&since=yesterday&targetID=x&color=red");
    expect(expectInvalid(res).sort()).toEqual(["color", "limit", "operation", "since", "targetID"]);
    const page = await events(owner.api, "?limit=1");
    expectInvalid(await owner.api.get(`/audit-events?token=${page.nextToken}x`));
    // A token of another filter, or of another tenant, is not a token of this listing.
    expectInvalid(await owner.api.get(`/audit-events?operation=createVariable&token=${page.nextToken}`));
    const other = await svc.tenant("audit-token");
    expectInvalid(await other.api.get(`/audit-events?token=${page.nextToken}`));
    const providers = await owner.api.get("/providers?limit=1");
    expect(providers.status).toBe(200);
  });

  it("needs the audit:read scope", async () => {
    const api = svc.client(
      await svc.token(
        owner.id,
        ALL_SCOPES.filter((s) => s !== "audit:read"),
      ),
    );
    expectProblem(await api.get("/audit-events"), 403, "PERMISSION_DENIED");
  });

  it("an unknown target id is an empty page, not an error", async () => {
    expect((await events(owner.api, `?targetID=${unknownId()}`)).auditEvents).toEqual([]);
  });
});

describe("retention", () => {
  it("the background pruning deletes only events older than AUDIT_RETENTION_DAYS, in bounded batches", async () => {
    const runtime = ManagedRuntime.make(MemoryStorageLive);
    try {
      const day = 86_400_000;
      const now = Date.now();
      const row = (n: number, ageDays: number) => ({
        id: `audit${String(n).padStart(6, "0")}`,
        tenant: "t",
        at: new Date(now - ageDays * day),
        actorSub: "s",
        actorClientId: "",
        operation: "createVariable",
        targetKind: "variable" as const,
        targetId: `vari${String(n).padStart(7, "0")}`,
        versionBefore: 0,
        versionAfter: 0,
        requestId: "r",
        fields: [],
      });
      const rows = [...Array.from({ length: 25 }, (_, i) => row(i, 91 + i)), row(100, 89), row(101, 1)];
      const remaining = () =>
        runtime.runPromise(
          Effect.flatMap(Storage, (s) => s.read((tx) => tx.searchAuditEvents({ tenant: "t", limit: 100 }))),
        );
      await runtime.runPromise(
        Effect.flatMap(Storage, (s) =>
          s.transaction((tx) => Effect.forEach(rows, (r) => tx.insertAuditEvent(r), { discard: true })),
        ),
      );
      // Batches of 10: three transactions (10, 10, 5).
      expect(await runtime.runPromise(pruneAuditEvents(90, 10))).toBe(25);
      expect((await remaining()).items.map((e) => e.id)).toEqual(["audit000101", "audit000100"]);
      // The service's background task with a shorter retention: it prunes at start, and stop waits for it.
      const logs: Array<Record<string, unknown>> = [];
      const logger = pino({ level: "info" }, { write: (line: string) => void logs.push(JSON.parse(line)) });
      const retention = startAuditRetention(runtime, 30, logger);
      await retention.stop();
      expect((await remaining()).items.map((e) => e.id)).toEqual(["audit000101"]);
      expect(logs).toEqual([expect.objectContaining({ msg: "audit events pruned", deleted: 1, retentionDays: 30 })]);
    } finally {
      await runtime.dispose();
    }
  });
});
