import { events } from "./support/audit-events.js";
import { ALL_SCOPES } from "@mcpsm/domain";
import { Storage } from "@mcpsm/domain/storage";
import { pruneAuditEvents } from "@mcpsm/domain/use-cases";
import { MemoryStorageLive } from "@mcpsm/storage-memory";
import { Effect, ManagedRuntime } from "effect";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuditRetention } from "../src/operations/audit-retention.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { expectInvalid, expectProblem } from "./support/problems.js";
import { createVariable, unknownId } from "./support/records.js";

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
