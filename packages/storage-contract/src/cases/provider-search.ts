import type { ProviderSearch } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { beforeEach, describe, expect, it } from "vitest";
import { at, provider, TENANT_A, TENANT_B, TENANT_C, tool } from "../fixtures.js";
import type { Harness } from "../harness.js";

// Tenant A's view: its own providers (both visibilities) and the PUBLIC ones of B and C, never B's INTERNAL one.
const ownInternal = provider(1, { name: "GitHub Issues", baseURL: "https://api.github.com" });
const ownPublic = provider(2, {
  name: "Stripe Payments",
  baseURL: "https://api.stripe.com/v1",
  visibilityType: "PUBLIC",
});
const otherPublic = provider(3, {
  tenant: TENANT_B,
  name: "GitLab",
  baseURL: "https://GITLAB.example.com/api",
  visibilityType: "PUBLIC",
});
const otherInternal = provider(4, {
  tenant: TENANT_B,
  name: "Hidden GitHub Mirror",
  baseURL: "https://github.internal.b",
});
// Names with LIKE wildcards in them, and near misses a LIKE pattern would wrongly match.
const underscore = provider(5, {
  tenant: TENANT_C,
  name: "weather_now",
  baseURL: "https://weather.example.org",
  visibilityType: "PUBLIC",
});
const nearUnderscore = provider(6, {
  tenant: TENANT_C,
  name: "weatherXnow",
  baseURL: "https://weather.example.net",
  visibilityType: "PUBLIC",
});
const percent = provider(7, {
  tenant: TENANT_C,
  name: "uptime 100%",
  baseURL: "https://status.example.com",
  visibilityType: "PUBLIC",
});
const nearPercent = provider(8, {
  tenant: TENANT_C,
  name: "status 2000",
  baseURL: "https://status2.example.com",
  visibilityType: "PUBLIC",
});

const all = [ownInternal, ownPublic, otherPublic, otherInternal, underscore, nearUnderscore, percent, nearPercent];
const visibleToA = all.filter((p) => p !== otherInternal);
const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((row) => row.id);

/** searchProviders: visibility, filters, cursor, limit, match count and tools. */
export const providerSearchCases = (h: Harness) =>
  describe("searchProviders", () => {
    beforeEach(() => h.seed({ providers: all }));

    const search = async (query: Partial<ProviderSearch>) => {
      const page = await h.read((tx) => tx.searchProviders({ viewerTenant: TENANT_A, limit: 100, ...query }));
      return { ids: page.items.map((item) => item.provider.id), matchCount: page.matchCount };
    };

    it("shows the viewer's own providers and every PUBLIC one, never another tenant's INTERNAL one", async () => {
      expect(await search({})).toEqual({ ids: ids(visibleToA), matchCount: 7 });
      expect(
        (await h.read((tx) => tx.searchProviders({ viewerTenant: TENANT_B, limit: 100 }))).items.map(
          (i) => i.provider.id,
        ),
      ).toEqual(ids([ownPublic, otherPublic, otherInternal, underscore, nearUnderscore, percent, nearPercent]));
    });

    it("items are whole rows", async () => {
      const page = await h.read((tx) => tx.searchProviders({ viewerTenant: TENANT_A, limit: 100 }));
      expect(page.items.map((item) => item.provider)).toEqual(visibleToA);
    });

    it("nameContains is a case-insensitive substring of the name", async () => {
      expect(await search({ nameContains: "git" })).toEqual({ ids: ids([ownInternal, otherPublic]), matchCount: 2 });
      expect(await search({ nameContains: "PAYMENT" })).toEqual({ ids: ids([ownPublic]), matchCount: 1 });
    });

    it("baseURLContains is a case-insensitive substring of the base URL", async () => {
      expect(await search({ baseURLContains: "gitlab.EXAMPLE" })).toEqual({ ids: ids([otherPublic]), matchCount: 1 });
      expect(await search({ baseURLContains: "api." })).toEqual({ ids: ids([ownInternal, ownPublic]), matchCount: 2 });
    });

    it("_ and % in a substring match only themselves", async () => {
      expect(await search({ nameContains: "r_n" })).toEqual({ ids: ids([underscore]), matchCount: 1 });
      expect(await search({ nameContains: "0%" })).toEqual({ ids: ids([percent]), matchCount: 1 });
    });

    it("apiType keeps the providers of that API type", async () => {
      expect(await search({ apiType: "REST" })).toEqual({ ids: ids(visibleToA), matchCount: 7 });
    });

    it("visibility keeps the providers of that visibility", async () => {
      expect(await search({ visibility: "INTERNAL" })).toEqual({ ids: ids([ownInternal]), matchCount: 1 });
      expect(await search({ visibility: "PUBLIC" })).toEqual({
        ids: ids(visibleToA.filter((p) => p !== ownInternal)),
        matchCount: 6,
      });
    });

    it("filters combine with AND", async () => {
      expect(await search({ nameContains: "git", visibility: "PUBLIC" })).toEqual({
        ids: ids([otherPublic]),
        matchCount: 1,
      });
      expect(await search({ nameContains: "git", baseURLContains: "github" })).toEqual({
        ids: ids([ownInternal]),
        matchCount: 1,
      });
      expect(await search({ nameContains: "git", baseURLContains: "stripe" })).toEqual({ ids: [], matchCount: 0 });
    });

    it("after starts strictly after the cursor; limit caps the page; matchCount ignores both", async () => {
      expect(await search({ after: { createdAt: ownPublic.createdAt, id: ownPublic.id } })).toEqual({
        ids: ids(visibleToA.slice(2)),
        matchCount: 7,
      });
      expect(await search({ limit: 3 })).toEqual({ ids: ids(visibleToA.slice(0, 3)), matchCount: 7 });
      expect(await search({ after: { createdAt: ownInternal.createdAt, id: ownInternal.id }, limit: 2 })).toEqual({
        ids: ids(visibleToA.slice(1, 3)),
        matchCount: 7,
      });
      expect(await search({ nameContains: "weather", limit: 1 })).toEqual({ ids: ids([underscore]), matchCount: 2 });
      expect(await search({ after: { createdAt: at(1_000), id: "00000000000" } })).toEqual({ ids: [], matchCount: 7 });
    });

    it("the cursor compares creation time first, then id", async () => {
      const tied = ["srch000000b", "srch000000B", "srch000000a"].map((id, i) =>
        provider(20 + i, { id, createdAt: at(10) }),
      );
      await h.seed({ providers: tied });
      const idsAfter = async (cursor: ProviderSearch["after"]) =>
        (
          await h.read((tx) =>
            tx.searchProviders({ viewerTenant: TENANT_A, nameContains: "provider-2", after: cursor, limit: 10 }),
          )
        ).items.map((item) => item.provider.id);
      expect(await idsAfter(undefined)).toEqual(["srch000000B", "srch000000a", "srch000000b"]);
      expect(await idsAfter({ createdAt: at(10), id: "srch000000B" })).toEqual(["srch000000a", "srch000000b"]);
      // A cursor between rows (an id that is not stored) works too.
      expect(await idsAfter({ createdAt: at(10), id: "srch000000Z" })).toEqual(["srch000000a", "srch000000b"]);
      expect(await idsAfter({ createdAt: at(9), id: "zzzzzzzzzzz" })).toEqual([
        "srch000000B",
        "srch000000a",
        "srch000000b",
      ]);
    });

    it("paging with the last item as cursor visits every match once, in order", async () => {
      const seen: Array<string> = [];
      let after: ProviderSearch["after"];
      for (let page = 0; page < 10; page++) {
        const { items, matchCount } = await h.read((tx) =>
          tx.searchProviders({ viewerTenant: TENANT_A, after, limit: 2 }),
        );
        expect(matchCount).toBe(7);
        const last = items.at(-1);
        if (last === undefined) break;
        seen.push(...items.map((item) => item.provider.id));
        after = { createdAt: last.provider.createdAt, id: last.provider.id };
      }
      expect(seen).toEqual(ids(visibleToA));
    });

    it("matchCount and countProviders follow updates, deletes and rolled-back writes", async () => {
      // B's PUBLIC provider turns INTERNAL (A no longer sees it), A's INTERNAL one turns PUBLIC (A still does).
      await h.run((tx) =>
        Effect.all([
          tx.updateProvider(
            { ...otherPublic, visibilityType: "INTERNAL", version: otherPublic.version + 1 },
            otherPublic.version,
          ),
          tx.updateProvider(
            { ...ownInternal, visibilityType: "PUBLIC", version: ownInternal.version + 1 },
            ownInternal.version,
          ),
          tx.updateProvider({ ...ownPublic, name: "Stripe", version: ownPublic.version + 1 }, ownPublic.version),
        ]),
      );
      expect((await search({})).matchCount).toBe(6);
      expect((await search({ visibility: "PUBLIC" })).matchCount).toBe(6);
      expect((await search({ visibility: "INTERNAL" })).matchCount).toBe(0);
      await h.run((tx) => tx.deleteProvider(nearPercent.id));
      expect((await search({})).matchCount).toBe(5);
      expect((await search({ apiType: "REST" })).matchCount).toBe(5);
      // A transaction that inserts and then fails leaves every count as it was.
      await h.failure((tx) => Effect.zipRight(tx.insertProvider(provider(9)), Effect.fail("undone" as const)));
      expect((await search({})).matchCount).toBe(5);
      expect(
        await h.read((tx) =>
          Effect.all([tx.countProviders(TENANT_A), tx.countProviders(TENANT_B), tx.countProviders(TENANT_C)]),
        ),
      ).toEqual([2, 2, 3]);
      await h.seed({ providers: [provider(9), provider(10, { tenant: TENANT_B, visibilityType: "PUBLIC" })] });
      expect((await search({})).matchCount).toBe(7);
      expect(await h.read((tx) => tx.countProviders(TENANT_A))).toBe(3);
    });

    // A repeated substring search may reuse a count it made before (the PostgreSQL adapter remembers them);
    // every change to what it counts must show in the very next search.
    it("a repeated substring search counts every change at once: inserts, renames, deletes, rollbacks", async () => {
      const git = { nameContains: "git" };
      expect((await search(git)).matchCount).toBe(2);
      expect((await search(git)).matchCount).toBe(2);
      await h.seed({ providers: [provider(9, { name: "gitea" })] });
      expect(await search(git)).toEqual({ ids: ids([ownInternal, otherPublic, provider(9)]), matchCount: 3 });
      // A rename out of the filter, then a description-only change (same count, still exact).
      await h.run((tx) =>
        tx.updateProvider({ ...ownInternal, name: "Issues", version: ownInternal.version + 1 }, ownInternal.version),
      );
      expect((await search(git)).matchCount).toBe(2);
      await h.run((tx) =>
        tx.updateProvider({ ...provider(9, { name: "gitea" }), description: "d", version: 2 }, provider(9).version),
      );
      expect((await search(git)).matchCount).toBe(2);
      await h.failure((tx) =>
        Effect.zipRight(tx.insertProvider(provider(10, { name: "gitx" })), Effect.fail("undone")),
      );
      expect((await search(git)).matchCount).toBe(2);
      await h.run((tx) => tx.deleteProvider(provider(9).id));
      expect(await search(git)).toEqual({ ids: ids([otherPublic]), matchCount: 1 });
      expect((await search({ baseURLContains: "example" })).matchCount).toBe(5);
      await h.run((tx) => tx.deleteProvider(percent.id));
      expect((await search({ baseURLContains: "example" })).matchCount).toBe(4);
    });

    it("another tenant's PUBLIC providers changing changes the viewer's substring count at once", async () => {
      const weather = { nameContains: "weather" };
      expect((await search(weather)).matchCount).toBe(2);
      // C (not the viewer) adds a PUBLIC match and an INTERNAL one; then hides one; then renames one away.
      await h.seed({
        providers: [
          provider(11, { tenant: TENANT_C, name: "weather later", visibilityType: "PUBLIC" }),
          provider(12, { tenant: TENANT_C, name: "weather hidden" }),
        ],
      });
      expect((await search(weather)).matchCount).toBe(3);
      await h.run((tx) =>
        tx.updateProvider(
          { ...underscore, visibilityType: "INTERNAL", version: underscore.version + 1 },
          underscore.version,
        ),
      );
      expect((await search(weather)).matchCount).toBe(2);
      await h.run((tx) =>
        tx.updateProvider(
          { ...nearUnderscore, name: "sunshine", version: nearUnderscore.version + 1 },
          nearUnderscore.version,
        ),
      );
      expect(await search(weather)).toEqual({ ids: ids([provider(11)]), matchCount: 1 });
      // B's INTERNAL provider turning PUBLIC brings it into A's view.
      expect((await search({ nameContains: "mirror" })).matchCount).toBe(0);
      await h.run((tx) =>
        tx.updateProvider(
          { ...otherInternal, visibilityType: "PUBLIC", version: otherInternal.version + 1 },
          otherInternal.version,
        ),
      );
      expect((await search({ nameContains: "mirror" })).matchCount).toBe(1);
      // The other tenant's own view follows its own changes too.
      const seenByC = async () =>
        (await h.read((tx) => tx.searchProviders({ viewerTenant: TENANT_C, nameContains: "weather", limit: 100 })))
          .matchCount;
      expect(await seenByC()).toBe(3);
      await h.run((tx) => tx.deleteProvider(provider(12).id));
      expect(await seenByC()).toBe(2);
    });

    it("a substring search inside a transaction sees the transaction's own writes, and so does the next one", async () => {
      const git = { nameContains: "git" };
      expect((await search(git)).matchCount).toBe(2);
      const inside = await h.run((tx) =>
        Effect.gen(function* () {
          const counts = [];
          yield* tx.insertProvider(provider(9, { name: "gitea" }));
          counts.push((yield* tx.searchProviders({ viewerTenant: TENANT_A, limit: 10, ...git })).matchCount);
          yield* tx.insertProvider(provider(10, { name: "gitx" }));
          counts.push((yield* tx.searchProviders({ viewerTenant: TENANT_A, limit: 10, ...git })).matchCount);
          return counts;
        }),
      );
      expect(inside).toEqual([3, 4]);
      expect((await search(git)).matchCount).toBe(4);
    });

    it("items carry all their tools, in creation order", async () => {
      const tools = [tool(3, ownInternal.id), tool(1, ownInternal.id), tool(2, otherPublic.id)];
      await h.seed({ tools });
      const page = await h.read((tx) => tx.searchProviders({ viewerTenant: TENANT_A, limit: 3 }));
      expect(page.items).toEqual([
        { provider: ownInternal, tools: [tool(1, ownInternal.id), tool(3, ownInternal.id)] },
        { provider: ownPublic, tools: [] },
        { provider: otherPublic, tools: [tool(2, otherPublic.id)] },
      ]);
      expect(await h.read((tx) => tx.findProviderWithTools(ownInternal.id))).toEqual(page.items[0]);
    });
  });
