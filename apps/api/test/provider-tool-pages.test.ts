import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, startTestService, type Tenant, type TestService } from "./support/harness.js";
import { expectInvalid, expectProblem, expectStatus } from "./support/problems.js";
import { createProvider, createTool, unknownId } from "./support/records.js";

// GET /providers/{id}/tools with `limit`, `token` and `q` (issue 31; docs/api-rules.md §11): every tool
// without a limit, as before; pages in the list's order under a signed token; a filter over five fields.

const TOOLS = 1_003;

/** A description of `count` GET operations, one path each. */
const operations = (count: number) =>
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Warehouse", version: "1" },
    servers: [{ url: "https://warehouse.example.com" }],
    paths: Object.fromEntries(
      Array.from({ length: count }, (_, i) => [
        `/things/${i}`,
        {
          get: { operationId: `getThing${i}`, summary: `Thing number ${i}`, responses: { 200: { description: "ok" } } },
        },
      ]),
    ),
  });

interface Page {
  readonly tools: Array<{ readonly id: string; readonly name: string }>;
  readonly matchCount: number;
  readonly nextToken: string;
}

const idsOf = (page: Page) => page.tools.map((t) => t.id);

/** Every page of a provider's tools for `query`, following nextToken. */
const allPages = async (api: Client, providerId: string, query: string) => {
  const pages: Array<Page> = [];
  let token = "";
  for (let guard = 0; guard < 500; guard++) {
    const res = await api.get(`/providers/${providerId}/tools?${query}&token=${encodeURIComponent(token)}`);
    expectStatus(res, 200);
    pages.push(res.body);
    token = res.body.nextToken;
    if (token === "") return pages;
  }
  throw new Error("paging did not end");
};

describe("a provider's tools, paged", () => {
  let svc: TestService;
  let alice: Tenant;
  let bob: Tenant;
  let big: string;
  /** The big provider's tool ids in the order the unpaged list has always answered. */
  let order: Array<string>;

  beforeAll(async () => {
    svc = await startTestService({ quotas: { toolsPerProvider: 2_000 } });
    alice = await svc.tenant("tool-pages");
    bob = await svc.tenant("tool-pages-other");
    const imported = await alice.api.post("/providers/import", {
      import: { document: operations(TOOLS), dryRun: false },
    });
    expectStatus(imported, 201);
    big = imported.body.provider.id;
    order = imported.body.provider.tools.map((t: { id: string }) => t.id);
  }, 120_000);
  afterAll(() => svc?.close());

  it('without limit: every tool in today\'s order, matchCount, nextToken ""', async () => {
    const res = await alice.api.get(`/providers/${big}/tools`);
    expectStatus(res, 200);
    expect(Object.keys(res.body).sort()).toEqual(["matchCount", "nextToken", "tools"]);
    expect(idsOf(res.body)).toEqual(order);
    expect(order).toHaveLength(TOOLS);
    expect(res.body.matchCount).toBe(TOOLS);
    expect(res.body.nextToken).toBe("");
    // The same records as GET /providers/{id} carries.
    expect(res.body.tools).toEqual((await alice.api.get(`/providers/${big}`)).body.provider.tools);
  });

  it('following nextToken visits every tool once, in order; the last page has nextToken ""', async () => {
    const pages = await allPages(alice.api, big, "limit=97");
    expect(pages.map((p) => p.tools.length)).toEqual([...Array(10).fill(97), TOOLS - 970]);
    expect(pages.flatMap(idsOf)).toEqual(order);
    for (const page of pages) expect(page.matchCount).toBe(TOOLS);
    expect(pages.at(-1)?.nextToken).toBe("");
  });

  it("limit above 1000 is treated as 1000; limit=1 is accepted", async () => {
    const res = await alice.api.get(`/providers/${big}/tools?limit=5000`);
    expect(idsOf(res.body)).toEqual(order.slice(0, 1000));
    expect(res.body.nextToken).not.toBe("");
    const rest = await alice.api.get(
      `/providers/${big}/tools?limit=1000&token=${encodeURIComponent(res.body.nextToken)}`,
    );
    expect(idsOf(rest.body)).toEqual(order.slice(1000));
    expect(rest.body.nextToken).toBe("");
    expect(idsOf((await alice.api.get(`/providers/${big}/tools?limit=1`)).body)).toEqual(order.slice(0, 1));
  });

  it.each(["0", "-1", "abc", "1.5", "", "1e3"])("limit=%s answers 400 at limit", async (limit) => {
    expect(expectInvalid(await alice.api.get(`/providers/${big}/tools?limit=${encodeURIComponent(limit)}`))).toEqual([
      "limit",
    ]);
  });

  it("a repeated parameter answers 400; unknown parameters are ignored, as they always were", async () => {
    expect(expectInvalid(await alice.api.get(`/providers/${big}/tools?limit=5&limit=6`))).toEqual(["limit"]);
    const res = await alice.api.get(`/providers/${big}/tools?nameContains=zzz&page=3&foo`);
    expectStatus(res, 200);
    expect(idsOf(res.body)).toEqual(order);
  });

  it("q matches name, title, description, method or path, ignoring case; pages of q follow the order", async () => {
    const provider = await createProvider(alice.api);
    const listIssues = await createTool(alice.api, provider.id, { name: "listIssues", title: "List Issues" });
    const getRepo = await createTool(alice.api, provider.id, {
      name: "getRepo",
      path: "/repos/{owner}",
      pathArgsJSONSchema: { type: "object", properties: { owner: { type: "string" } }, required: ["owner"] },
      description: "Reads one *repository*",
    });
    const openIssue = await createTool(alice.api, provider.id, { name: "openIssue", method: "POST" });
    const literal = await createTool(alice.api, provider.id, { name: "usage", title: "100% of it" });
    const q = async (text: string) => {
      const res = await alice.api.get(`/providers/${provider.id}/tools?q=${encodeURIComponent(text)}`);
      expectStatus(res, 200);
      return { ids: idsOf(res.body), matchCount: res.body.matchCount };
    };
    expect(await q("ISSUE")).toEqual({ ids: [listIssues.id, openIssue.id], matchCount: 2 });
    expect(await q("list issues")).toEqual({ ids: [listIssues.id], matchCount: 1 });
    expect(await q("*REPOSITORY*")).toEqual({ ids: [getRepo.id], matchCount: 1 });
    expect(await q("/repos/{")).toEqual({ ids: [getRepo.id], matchCount: 1 });
    expect(await q("post")).toEqual({ ids: [openIssue.id], matchCount: 1 });
    expect(await q("0%")).toEqual({ ids: [literal.id], matchCount: 1 });
    expect(await q("nowhere")).toEqual({ ids: [], matchCount: 0 });
    expect((await q("")).ids).toEqual([listIssues.id, getRepo.id, openIssue.id, literal.id]);

    // "number 1" is in tools 1, 10–19, 100–199 and 1000–1002: 114 of them, paged by 50.
    const pages = await allPages(alice.api, big, "limit=50&q=NUMBER%201");
    const expected = order.filter((_, i) => `Thing number ${i}`.includes("number 1"));
    expect(expected).toHaveLength(114);
    expect(pages.map((p) => p.tools.length)).toEqual([50, 50, 14]);
    expect(pages.flatMap(idsOf)).toEqual(expected);
    for (const page of pages) expect(page.matchCount).toBe(114);
  });

  it("a tampered token, or one of another provider, another q or another tenant, answers 400 at token", async () => {
    const { nextToken } = (await alice.api.get(`/providers/${big}/tools?limit=3&q=thing`)).body;
    expect(nextToken).not.toBe("");
    const [payload = "", signature = ""] = nextToken.split(".");
    const flipped = (s: string, i: number) => `${s.slice(0, i)}${s[i] === "A" ? "B" : "A"}${s.slice(i + 1)}`;
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), i: order[500] }),
    ).toString("base64url");
    const tokenAt = async (api: Client, path: string, token: string) =>
      expectInvalid(await api.get(`${path}&token=${encodeURIComponent(token)}`));
    for (const bad of [`${flipped(payload, 3)}.${signature}`, `${forged}.${signature}`, `${nextToken}x`, "garbage"])
      expect(await tokenAt(alice.api, `/providers/${big}/tools?limit=3&q=thing`, bad)).toEqual(["token"]);
    expect(await tokenAt(alice.api, `/providers/${big}/tools?limit=3&q=other`, nextToken)).toEqual(["token"]);
    expect(await tokenAt(alice.api, `/providers/${big}/tools?limit=3`, nextToken)).toEqual(["token"]);
    const another = await createProvider(alice.api);
    await createTool(alice.api, another.id, { name: "thing" });
    expect(await tokenAt(alice.api, `/providers/${another.id}/tools?limit=3&q=thing`, nextToken)).toEqual(["token"]);
    // A provider's listing token is not one of its tools.
    const providerToken = (await alice.api.get("/providers?limit=1")).body.nextToken;
    expect(providerToken).not.toBe("");
    expect(await tokenAt(alice.api, `/providers/${big}/tools?limit=3`, providerToken)).toEqual(["token"]);
    // The same token, same provider and q, another limit: the next tools.
    const ok = await alice.api.get(`/providers/${big}/tools?limit=5&q=thing&token=${encodeURIComponent(nextToken)}`);
    expect(idsOf(ok.body)).toEqual(order.slice(3, 8));

    // Bob reads Alice's provider once it is PUBLIC, but not with her token.
    expectProblem(await bob.api.get(`/providers/${big}/tools?limit=3`), 404, "NOT_FOUND");
    const shared = await alice.api.patch(`/providers/${big}`, { provider: { visibilityType: "PUBLIC" } });
    expectStatus(shared, 200);
    try {
      const bobs = await bob.api.get(`/providers/${big}/tools?limit=3&q=thing`);
      expect(idsOf(bobs.body)).toEqual(order.slice(0, 3));
      expect(await tokenAt(bob.api, `/providers/${big}/tools?limit=3&q=thing`, nextToken)).toEqual(["token"]);
      const bobsNext = `/providers/${big}/tools?limit=3&q=thing&token=${encodeURIComponent(bobs.body.nextToken)}`;
      expect(idsOf((await bob.api.get(bobsNext)).body)).toEqual(order.slice(3, 6));
    } finally {
      await alice.api.patch(`/providers/${big}`, { provider: { visibilityType: "INTERNAL" } });
    }
  });

  it("another tenant's provider and an unknown one answer 404, whatever the paging", async () => {
    for (const query of ["", "?limit=5", "?limit=5&q=thing"]) {
      expectProblem(await bob.api.get(`/providers/${big}/tools${query}`), 404, "NOT_FOUND");
      expectProblem(await alice.api.get(`/providers/${unknownId()}/tools${query}`), 404, "NOT_FOUND");
    }
  });
});
