import { CALL_MATCH_COUNT_CAP, type CallSearch, type CallUsageQuery, type ToolCallRow } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { at, id, TENANT_A, TENANT_B } from "../fixtures.js";
import type { Harness } from "../harness.js";

// appendCalls / searchCalls / callUsage / pruneCalls: one server's calls newest first (time, then id, both
// descending) within its tenant, filters combined with AND, a keyset cursor, usage counted per bucket and
// per server from the calls' minutes, and pruning by age in bounded batches across tenants.

const SERVER = id("srvr", 1);
const OTHER_SERVER = id("srvr", 2);

const call = (n: number, override: Partial<ToolCallRow> = {}): ToolCallRow => ({
  id: id("call", n),
  tenant: TENANT_A,
  serverId: SERVER,
  at: at(n * 20),
  tool: n % 2 === 0 ? "listPets" : "getPet",
  principal: `token:${id("tokn", 1)}`,
  era: n % 3 === 0 ? "legacy" : "modern",
  status: n % 4 === 0 ? "tool_error" : "ok",
  errorType: n % 4 === 0 ? "tool_error" : "",
  upstreamStatus: n % 4 === 0 ? 404 : 200,
  latencyMs: n * 1.25,
  resultChars: n * 100,
  tokensBefore: n * 25,
  tokensAfter: null,
  arguments: n === 5 ? { petId: 7, name: "***" } : null,
  ...override,
});

export const toolCallCases = (h: Harness) =>
  describe("tool calls", () => {
    const calls = () => h.storage().calls;
    const append = (rows: ReadonlyArray<ToolCallRow>) => Effect.runPromise(calls().appendCalls(rows));
    const search = (s: Partial<CallSearch> = {}) =>
      Effect.runPromise(calls().searchCalls({ tenant: TENANT_A, serverId: SERVER, limit: 100, ...s }));
    const usage = (q: Partial<CallUsageQuery> = {}) =>
      Effect.runPromise(
        calls().callUsage({ tenant: TENANT_A, since: at(0), until: at(3600), bucketSeconds: 60, ...q }),
      );

    it("round-trips every field and lists one server's calls newest first", async () => {
      const rows = [call(1), call(2), call(5), call(3, { serverId: OTHER_SERVER }), call(4, { tenant: TENANT_B })];
      await append(rows);
      const page = await search();
      expect(page.items).toEqual([rows[2], rows[1], rows[0]]);
      expect(page.matchCount).toBe(3);
      // A listing is one tenant's: another tenant's calls under the same server id stay apart.
      expect((await search({ tenant: TENANT_B })).items.map((r) => r.id)).toEqual([id("call", 4)]);
    });

    it("filters by tool, status and time, and pages with a keyset cursor", async () => {
      const rows = Array.from({ length: 12 }, (_, i) => call(i + 1));
      await append(rows);
      expect((await search({ tool: "listPets" })).items.map((r) => r.id)).toEqual(
        rows
          .filter((r) => r.tool === "listPets")
          .reverse()
          .map((r) => r.id),
      );
      expect((await search({ status: "tool_error" })).items.map((r) => r.id)).toEqual(
        [12, 8, 4].map((n) => id("call", n)),
      );
      expect((await search({ since: at(200), tool: "getPet" })).items.map((r) => r.id)).toEqual(
        [11].map((n) => id("call", n)),
      );
      const first = await search({ limit: 5 });
      expect(first.matchCount).toBe(12);
      const last = first.items.at(-1) as ToolCallRow;
      const second = await search({ limit: 5, after: { at: last.at, id: last.id } });
      expect(second.items.map((r) => r.id)).toEqual([7, 6, 5, 4, 3].map((n) => id("call", n)));
    });

    it("orders calls of the same millisecond by id, and caps the match count", async () => {
      const same = [call(2, { at: at(5) }), call(1, { at: at(5) })];
      await append(same);
      expect((await search()).items.map((r) => r.id)).toEqual([id("call", 2), id("call", 1)]);
      expect(CALL_MATCH_COUNT_CAP).toBeGreaterThanOrEqual(1_000);
    });

    it("counts usage per bucket and per server from the calls' minutes", async () => {
      // Calls at 20 s steps: minutes 0 (n=1,2), 1 (n=3..5), 2 (n=6..8); another server and tenant beside.
      const rows = [
        ...Array.from({ length: 8 }, (_, i) => call(i + 1)),
        call(9, { serverId: OTHER_SERVER, at: at(30), latencyMs: 2500 }),
        call(10, { tenant: TENANT_B, at: at(30) }),
      ];
      await append(rows);
      const all = await usage({ bucketSeconds: 120 });
      expect(all.buckets.map((b) => [b.start.toISOString(), b.calls, b.errors, b.tokens])).toEqual([
        [at(0).toISOString(), 5 + 1, 1, (1 + 2 + 3 + 4 + 5) * 25 + 9 * 25],
        [at(120).toISOString(), 3, 1, (6 + 7 + 8) * 25],
      ]);
      expect(all.servers.map((s) => [s.serverId, s.calls, s.errors])).toEqual([
        [SERVER, 8, 2],
        [OTHER_SERVER, 1, 0],
      ]);
      const other = all.servers[1];
      // 2,500 ms falls in the (2000, 3000] bucket: index 22.
      expect(other?.latency.findIndex((n) => n > 0)).toBe(22);
      // Whole hours (a store may keep hourly counts for them) answer the same.
      const hourly = await usage({ bucketSeconds: 3600 });
      expect(hourly.buckets.map((b) => [b.start.toISOString(), b.calls, b.errors])).toEqual([
        [at(0).toISOString(), 9, 2],
      ]);
      expect(hourly.servers.map((s) => [s.serverId, s.calls, s.latency.reduce((n, c) => n + c, 0)])).toEqual([
        [SERVER, 8, 8],
        [OTHER_SERVER, 1, 1],
      ]);
      const one = await usage({ serverId: SERVER, since: at(60), until: at(120) });
      expect(one.buckets.map((b) => b.calls)).toEqual([3]);
      expect(one.servers.map((s) => s.serverId)).toEqual([SERVER]);
      expect(one.buckets[0]?.latency.reduce((a, b) => a + b, 0)).toBe(3);
    });

    it("counts one server's calls per tool over whole hours, with the tokens the callers received", async () => {
      // Calls 1..4 in hour 0 (getPet: 1, 3; listPets: 2, 4), call 200 in hour 1 (4 and 200 tool errors); shaping
      // saw call 2 (40 tokens after its 50) and call 3 (0 after 75); another server and tenant beside.
      await append([
        call(1),
        call(2, { tokensAfter: 40 }),
        call(3, { tokensAfter: 0 }),
        call(4),
        call(200),
        call(5, { serverId: OTHER_SERVER }),
        call(6, { tenant: TENANT_B }),
      ]);
      const tools = (since: number, until: number) =>
        Effect.runPromise(
          calls().toolUsage({ tenant: TENANT_A, serverId: SERVER, since: at(since), until: at(until) }),
        ).then((tallies) => [...tallies].sort((a, b) => (a.tool < b.tool ? -1 : 1)));
      expect(await tools(0, 3600)).toEqual([
        { tool: "getPet", calls: 2, errors: 0, tokensBefore: 25 + 75, tokensAfter: 25 + 0 },
        { tool: "listPets", calls: 2, errors: 1, tokensBefore: 50 + 100, tokensAfter: 40 + 100 },
      ]);
      expect(await tools(0, 7200)).toContainEqual({
        tool: "listPets",
        calls: 3,
        errors: 2,
        tokensBefore: 50 + 100 + 5000,
        tokensAfter: 40 + 100 + 5000,
      });
      expect(await tools(3600, 7200)).toEqual([
        { tool: "listPets", calls: 1, errors: 1, tokensBefore: 5000, tokensAfter: 5000 },
      ]);
      // Pruning at an hour takes that hour's per-tool counts with it.
      await Effect.runPromise(calls().pruneCalls(at(3600), 100));
      expect(await tools(0, 7200)).toEqual([
        { tool: "listPets", calls: 1, errors: 1, tokensBefore: 5000, tokensAfter: 5000 },
      ]);
    });

    // A store's aggregates go by whole minutes and hours before the cutoff (the service prunes at a cutoff
    // it moves every hour); an hour-aligned cutoff leaves nothing of the pruned calls in any answer.
    it("prunes calls older than the cutoff in bounded batches, and their usage", async () => {
      await append([call(1), call(2), call(3, { tenant: TENANT_B }), call(200)]);
      expect(await Effect.runPromise(calls().pruneCalls(at(3600), 2))).toBe(2);
      expect(await Effect.runPromise(calls().pruneCalls(at(3600), 2))).toBe(1);
      expect(await Effect.runPromise(calls().pruneCalls(at(3600), 2))).toBe(0);
      expect((await search()).items.map((r) => r.id)).toEqual([id("call", 200)]);
      const left = await usage({ until: at(7200) });
      expect(left.buckets.map((b) => b.calls)).toEqual([1]);
      expect((await usage({ until: at(7200), bucketSeconds: 3600 })).buckets.map((b) => b.calls)).toEqual([1]);
    });
  });
