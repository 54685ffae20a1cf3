import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, startTestService, type Tenant, type TestService } from "./support/harness.js";
import { expectInvalid, expectStatus } from "./support/problems.js";
import { createProvider, createTool, uniq } from "./support/records.js";

// GET /providers: docs/api-rules.md §11 (limit, token, filters, matchCount, stable order) and §4 (visibility).

interface Created {
  readonly id: string;
  readonly createdAt: string;
}

/** The listing order of docs/api-rules.md §11: creation time, then id (code unit by code unit). */
const inCreationOrder = (records: ReadonlyArray<Created>): Array<string> =>
  [...records]
    .sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    )
    .map((r) => r.id);

/** Creates `count` providers; answers their ids in listing order (records made in one millisecond sort by id). */
const createMany = async (
  api: Client,
  count: number,
  overrides: (i: number) => Record<string, unknown> = () => ({}),
) => {
  const created: Array<Created> = [];
  for (let i = 0; i < count; i++) {
    const provider = await createProvider(api, { name: `P${String(i).padStart(4, "0")} ${uniq()}`, ...overrides(i) });
    created.push({ id: provider.id, createdAt: provider.createdAt });
  }
  return inCreationOrder(created);
};

const idsOf = (body: { providers: Array<{ id: string }> }) => body.providers.map((p) => p.id);

/** Every page of a listing, following nextToken; `between` runs after each page. */
const allPages = async (api: Client, query: string, between: () => Promise<void> = async () => {}) => {
  const pages: Array<{ providers: Array<{ id: string }>; matchCount: number; nextToken: string }> = [];
  let token = "";
  for (let guard = 0; guard < 500; guard++) {
    const res = await api.get(`/providers?${query}${token === "" ? "" : `&token=${encodeURIComponent(token)}`}`);
    expectStatus(res, 200);
    pages.push(res.body);
    token = res.body.nextToken;
    if (token === "") return pages;
    await between();
  }
  throw new Error("paging did not end");
};

describe("paging (no PUBLIC providers in this service)", () => {
  let svc: TestService;
  let alice: Tenant;
  let aliceIds: Array<string>;

  beforeAll(async () => {
    svc = await startTestService({ quotas: { providersPerTenant: 5000 } });
    alice = await svc.tenant("pager");
    aliceIds = await createMany(alice.api, 120);
  });
  afterAll(() => svc?.close());

  it("the answer is {providers, matchCount, nextToken}; limit defaults to 50", async () => {
    const res = await alice.api.get("/providers");
    expectStatus(res, 200);
    expect(Object.keys(res.body).sort()).toEqual(["matchCount", "nextToken", "providers"]);
    expect(idsOf(res.body)).toEqual(aliceIds.slice(0, 50));
    expect(res.body.matchCount).toBe(120);
    expect(typeof res.body.nextToken).toBe("string");
    expect(res.body.nextToken).not.toBe("");
  });

  it("providers are full records with their tools", async () => {
    const provider = await createProvider(alice.api, { name: `Zz with tools ${uniq()}` });
    const tool = await createTool(alice.api, provider.id);
    const res = await alice.api.get(`/providers?nameContains=${encodeURIComponent(provider.name)}`);
    expect(res.body.providers).toEqual([
      { ...provider, version: 2, updatedAt: res.body.providers[0].updatedAt, tools: [tool] },
    ]);
    await alice.api.delete(`/providers/${provider.id}/tools/${tool.id}`);
    await alice.api.delete(`/providers/${provider.id}`);
  });

  it('following nextToken visits every record once, in creation order; the last page has nextToken ""', async () => {
    const pages = await allPages(alice.api, "limit=7");
    expect(pages).toHaveLength(Math.ceil(120 / 7));
    expect(pages.flatMap(idsOf)).toEqual(aliceIds);
    for (const page of pages) expect(page.matchCount).toBe(120);
    expect(pages.at(-1)?.nextToken).toBe("");
    for (const page of pages.slice(0, -1)) expect(page.providers).toHaveLength(7);
  });

  it('a limit that divides the count exactly still ends with nextToken "" and no empty extra page', async () => {
    const pages = await allPages(alice.api, "limit=40");
    expect(pages.map((p) => p.providers.length)).toEqual([40, 40, 40]);
    expect(pages.flatMap(idsOf)).toEqual(aliceIds);
  });

  it("records inserted while paging never make a page skip or repeat a record", async () => {
    const pager = await svc.tenant("inserting");
    const originals = await createMany(pager.api, 30);
    const inserted: Array<string> = [];
    const pages = await allPages(pager.api, "limit=4", async () => {
      inserted.push(...(await createMany(pager.api, 2)));
    });
    expect(inserted.length).toBeGreaterThan(10);
    const seen = pages.flatMap(idsOf);
    // Nothing is repeated.
    expect(new Set(seen).size).toBe(seen.length);
    // Every record that existed when paging started is seen, in listing order.
    expect(seen.filter((id) => originals.includes(id))).toEqual(originals);
    // Anything else seen is a record inserted meanwhile.
    for (const id of seen.filter((id) => !originals.includes(id))) expect(inserted).toContain(id);
    expect(pages.at(-1)?.matchCount).toBe(originals.length + inserted.length);
  });

  it("records deleted while paging do not break the token", async () => {
    const pager = await svc.tenant("deleting");
    const ids = await createMany(pager.api, 12);
    const first = await pager.api.get("/providers?limit=5");
    expect(idsOf(first.body)).toEqual(ids.slice(0, 5));
    // The last record of the page (the cursor) and the next one go away.
    await pager.api.delete(`/providers/${ids[4]}`);
    await pager.api.delete(`/providers/${ids[5]}`);
    const second = await pager.api.get(`/providers?limit=5&token=${encodeURIComponent(first.body.nextToken)}`);
    expectStatus(second, 200);
    expect(idsOf(second.body)).toEqual(ids.slice(6, 11));
    expect(second.body.matchCount).toBe(10);
  });

  it("limit above 1000 is treated as 1000", async () => {
    const many = await svc.tenant("many");
    const ids = await createMany(many.api, 1003);
    const res = await many.api.get("/providers?limit=5000");
    expectStatus(res, 200);
    expect(idsOf(res.body)).toEqual(ids.slice(0, 1000));
    expect(res.body.matchCount).toBe(1003);
    expect(res.body.nextToken).not.toBe("");
    const rest = await many.api.get(`/providers?limit=1000&token=${encodeURIComponent(res.body.nextToken)}`);
    expect(idsOf(rest.body)).toEqual(ids.slice(1000));
    expect(rest.body.nextToken).toBe("");
    const exact = await many.api.get("/providers?limit=1000");
    expect(exact.body.providers).toHaveLength(1000);
  });

  it.each(["0", "-1", "-1000", "abc", "1.5", "", "1e3", "10abc"])("limit=%s answers 400 at limit", async (limit) => {
    expect(expectInvalid(await alice.api.get(`/providers?limit=${encodeURIComponent(limit)}`))).toEqual(["limit"]);
  });

  it("limit=1 is accepted", async () => {
    const res = await alice.api.get("/providers?limit=1");
    expect(idsOf(res.body)).toEqual(aliceIds.slice(0, 1));
  });

  it("a tampered token answers 400 at token", async () => {
    const { nextToken } = (await alice.api.get("/providers?limit=3")).body;
    const [payload, signature] = nextToken.split(".");
    const flipped = (s: string, i: number) => `${s.slice(0, i)}${s[i] === "A" ? "B" : "A"}${s.slice(i + 1)}`;
    const forgedPayload = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), i: aliceIds[100] }),
    ).toString("base64url");
    for (const bad of [
      `${flipped(payload, 3)}.${signature}`,
      `${payload}.${flipped(signature, 5)}`,
      `${forgedPayload}.${signature}`,
      `${nextToken}x`,
      payload,
      "garbage",
      "a.b.c",
    ])
      expect(expectInvalid(await alice.api.get(`/providers?limit=3&token=${encodeURIComponent(bad)}`))).toEqual([
        "token",
      ]);
  });

  it("a token of another tenant answers 400", async () => {
    const { nextToken } = (await alice.api.get("/providers?limit=3")).body;
    const other = await svc.tenant("other");
    await createMany(other.api, 5);
    expect(expectInvalid(await other.api.get(`/providers?limit=3&token=${encodeURIComponent(nextToken)}`))).toEqual([
      "token",
    ]);
  });

  it("a token used with other filters answers 400; with the same filters and another limit it works", async () => {
    const { nextToken } = (await alice.api.get("/providers?limit=3&nameContains=p0")).body;
    expect(nextToken).not.toBe("");
    for (const query of ["nameContains=p1", "", "nameContains=p0&apiType=REST", "nameContains=p0&visibility=INTERNAL"])
      expect(
        expectInvalid(await alice.api.get(`/providers?limit=3&${query}&token=${encodeURIComponent(nextToken)}`)),
      ).toEqual(["token"]);
    const ok = await alice.api.get(`/providers?limit=10&nameContains=p0&token=${encodeURIComponent(nextToken)}`);
    expectStatus(ok, 200);
    expect(idsOf(ok.body)).toEqual(aliceIds.slice(3, 13));
  });

  it("bad filter values answer 400, all reported together", async () => {
    expect(expectInvalid(await alice.api.get("/providers?apiType=SOAP"))).toEqual(["apiType"]);
    expect(expectInvalid(await alice.api.get("/providers?apiType=INVALID"))).toEqual(["apiType"]);
    expect(expectInvalid(await alice.api.get("/providers?visibility=INVALID"))).toEqual(["visibility"]);
    expect(expectInvalid(await alice.api.get("/providers?visibility=public"))).toEqual(["visibility"]);
    expect(expectInvalid(await alice.api.get("/providers?limit=5&limit=6"))).toEqual(["limit"]);
    const paths = expectInvalid(await alice.api.get("/providers?limit=0&apiType=x&visibility=y&token=z"));
    expect(paths.sort()).toEqual(["apiType", "limit", "token", "visibility"]);
  });
});

describe("filters and visibility", () => {
  let svc: TestService;
  let alice: Tenant;
  let bob: Tenant;
  const marker = uniq();
  const named: Record<string, string> = {};
  /** Every provider of this block in listing order. */
  let order: Array<string> = [];

  beforeAll(async () => {
    svc = await startTestService();
    alice = await svc.tenant("alice");
    bob = await svc.tenant("bob");
    const created: Record<string, Created> = {};
    const make = async (api: Client, key: string, name: string, baseURL: string, visibilityType: string) => {
      const provider = await createProvider(api, { name: `${name} ${marker}`, baseURL, visibilityType });
      created[key] = { id: provider.id, createdAt: provider.createdAt };
      named[key] = provider.id;
    };
    await make(alice.api, "aGithub", "GitHub API", "https://API.GitHub.com/v3", "INTERNAL");
    await make(alice.api, "aGitlab", "GitLab", "https://gitlab.example.com/api", "PUBLIC");
    await make(alice.api, "aStripe", "Stripe payments", "https://api.stripe.com", "INTERNAL");
    await make(bob.api, "bGithubPublic", "Github mirror", "https://github-mirror.example.org", "PUBLIC");
    await make(bob.api, "bGithubInternal", "GitHub private", "https://api.github.com/private", "INTERNAL");
    await make(bob.api, "bJira", "Jira", "https://jira.example.org", "PUBLIC");
    order = inCreationOrder(Object.values(created));
  });
  afterAll(() => svc?.close());

  const list = async (api: Client, query: string) => {
    const res = await api.get(`/providers?${query}`);
    expectStatus(res, 200);
    return res.body as { providers: Array<{ id: string }>; matchCount: number; nextToken: string };
  };
  /** The providers named by `keys`, in listing order. */
  const ids = (...keys: Array<string>) => {
    const wanted = new Set(keys.map((k) => named[k]));
    expect(wanted.size).toBe(keys.length);
    return order.filter((id) => wanted.has(id));
  };

  it("a tenant sees its own providers and every PUBLIC one, never another tenant's INTERNAL ones", async () => {
    const forAlice = await list(alice.api, "");
    expect(idsOf(forAlice)).toEqual(ids("aGithub", "aGitlab", "aStripe", "bGithubPublic", "bJira"));
    expect(forAlice.matchCount).toBe(5);
    const forBob = await list(bob.api, "");
    expect(idsOf(forBob)).toEqual(ids("aGitlab", "bGithubPublic", "bGithubInternal", "bJira"));
    const carol = await svc.tenant("carol");
    const forCarol = await list(carol.api, "");
    expect(idsOf(forCarol)).toEqual(ids("aGitlab", "bGithubPublic", "bJira"));
    expect(forCarol.matchCount).toBe(3);
  });

  it("nameContains is a case-insensitive substring match", async () => {
    expect(idsOf(await list(alice.api, "nameContains=github"))).toEqual(ids("aGithub", "bGithubPublic"));
    expect(idsOf(await list(alice.api, "nameContains=GITHUB"))).toEqual(ids("aGithub", "bGithubPublic"));
    expect(idsOf(await list(alice.api, "nameContains=tHUb%20a"))).toEqual(ids("aGithub"));
    expect(idsOf(await list(alice.api, "nameContains=payments"))).toEqual(ids("aStripe"));
    expect(await list(alice.api, "nameContains=nothing-like-this")).toEqual({
      providers: [],
      matchCount: 0,
      nextToken: "",
    });
  });

  it("baseURLContains is a case-insensitive substring match", async () => {
    expect(idsOf(await list(alice.api, "baseURLContains=github.com"))).toEqual(ids("aGithub"));
    expect(idsOf(await list(bob.api, "baseURLContains=API.GITHUB"))).toEqual(ids("bGithubInternal"));
    expect(idsOf(await list(alice.api, "baseURLContains=example.org"))).toEqual(ids("bGithubPublic", "bJira"));
  });

  it("apiType and visibility filter by their enum names", async () => {
    expect(idsOf(await list(alice.api, "apiType=REST"))).toEqual(
      ids("aGithub", "aGitlab", "aStripe", "bGithubPublic", "bJira"),
    );
    expect(idsOf(await list(alice.api, "visibility=PUBLIC"))).toEqual(ids("aGitlab", "bGithubPublic", "bJira"));
    expect(idsOf(await list(alice.api, "visibility=INTERNAL"))).toEqual(ids("aGithub", "aStripe"));
    expect(idsOf(await list(bob.api, "visibility=INTERNAL"))).toEqual(ids("bGithubInternal"));
  });

  it("filters combine with AND", async () => {
    expect(idsOf(await list(alice.api, "nameContains=git&visibility=PUBLIC"))).toEqual(ids("aGitlab", "bGithubPublic"));
    expect(
      idsOf(await list(alice.api, "nameContains=git&baseURLContains=example&visibility=PUBLIC&apiType=REST")),
    ).toEqual(ids("aGitlab", "bGithubPublic"));
    expect(idsOf(await list(alice.api, "nameContains=github&visibility=INTERNAL"))).toEqual(ids("aGithub"));
    expect((await list(alice.api, "nameContains=jira&visibility=INTERNAL")).matchCount).toBe(0);
  });

  it("matchCount counts every match over all pages", async () => {
    const first = await list(alice.api, "nameContains=git&limit=1");
    expect(first.providers).toHaveLength(1);
    expect(first.matchCount).toBe(3);
    const pages = await allPages(alice.api, "nameContains=git&limit=1");
    expect(pages.flatMap(idsOf)).toEqual(ids("aGithub", "aGitlab", "bGithubPublic"));
    for (const page of pages) expect(page.matchCount).toBe(3);
  });

  it("a provider turned INTERNAL leaves other tenants' listings", async () => {
    const provider = await createProvider(bob.api, { name: `Temporary ${marker}`, visibilityType: "PUBLIC" });
    expect(idsOf(await list(alice.api, "nameContains=temporary"))).toEqual([provider.id]);
    expectStatus(await bob.api.patch(`/providers/${provider.id}`, { provider: { visibilityType: "INTERNAL" } }), 200);
    expect(await list(alice.api, "nameContains=temporary")).toEqual({ providers: [], matchCount: 0, nextToken: "" });
  });
});
