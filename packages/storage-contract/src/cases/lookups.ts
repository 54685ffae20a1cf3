import type { ServerReference } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import {
  MISSING_ID,
  prompt,
  provider,
  resource,
  server,
  serverToken,
  TENANT_A,
  TENANT_B,
  TENANT_C,
  tokenHash,
  tool,
  variable,
} from "../fixtures.js";
import type { Harness } from "../harness.js";

const p1 = provider(1, { visibilityType: "PUBLIC" });
const p2 = provider(2, { tenant: TENANT_B, visibilityType: "PUBLIC" });
const p3 = provider(3, { tenant: TENANT_C, visibilityType: "PUBLIC" });
const [t1, t2, t3] = [tool(1, p1.id), tool(2, p1.id), tool(3, p1.id)];
const [r1, r2] = [resource(1, p1.id), resource(2, p2.id)];
const [q1, q3] = [prompt(1, p1.id), prompt(3, p3.id)];

// sA uses p1 directly, through t1 and through r1; sB (another tenant) uses p1 and t2, and q1; sC uses p2
// only through its resource r2; sD uses p3 only through its prompt q3.
const sA = server(1, { providers: [{ providerId: p1.id, toolIds: [t1.id] }], resourceIds: [r1.id] });
const sB = server(2, { tenant: TENANT_B, providers: [{ providerId: p1.id, toolIds: [t2.id] }], promptIds: [q1.id] });
const sC = server(3, { tenant: TENANT_B, resourceIds: [r2.id] });
const sD = server(4, { tenant: TENANT_C, promptIds: [q3.id] });
const world = {
  providers: [p1, p2, p3],
  tools: [t1, t2, t3],
  resources: [r1, r2],
  prompts: [q1, q3],
  servers: [sA, sB, sC, sD],
};

const users = (...servers: ReadonlyArray<{ readonly id: string; readonly tenant: string }>) =>
  servers.map(({ id, tenant }) => ({ id, tenant })).sort((a, b) => (a.id < b.id ? -1 : 1));

/** serversReferencing, the counts and the token lookup by hash. */
export const lookupCases = (h: Harness) =>
  describe("lookups", () => {
    // A provider counts as used when a server links it or any of its tools, resources or prompts: exactly
    // what blocks deleteProvider.
    const expectations: ReadonlyArray<readonly [string, ServerReference, ReturnType<typeof users>]> = [
      [
        "a provider, linked directly and through records, by servers of several tenants",
        { kind: "provider", id: p1.id },
        users(sA, sB),
      ],
      ["a provider used only through a resource", { kind: "provider", id: p2.id }, users(sC)],
      ["a provider used only through a prompt", { kind: "provider", id: p3.id }, users(sD)],
      ["a tool", { kind: "tool", id: t1.id }, users(sA)],
      ["a tool of another tenant's server", { kind: "tool", id: t2.id }, users(sB)],
      ["an unused tool", { kind: "tool", id: t3.id }, []],
      ["a resource", { kind: "resource", id: r1.id }, users(sA)],
      ["a prompt", { kind: "prompt", id: q1.id }, users(sB)],
      ["an unknown record", { kind: "provider", id: MISSING_ID }, []],
    ];
    for (const [what, reference, expected] of expectations)
      it(`serversReferencing ${what}`, async () => {
        await h.seed(world);
        const found = await h.run((tx) => tx.serversReferencing(reference));
        expect(users(...found)).toEqual(expected);
        // Each server once, however many ways it uses the record.
        expect(found).toHaveLength(expected.length);
      });

    it("counts are per tenant, or per server for tokens", async () => {
      await h.seed({
        ...world,
        variables: [variable(1), variable(2), variable(3, { tenant: TENANT_B })],
        serverTokens: [serverToken(1, sA.id), serverToken(2, sA.id), serverToken(3, sB.id, { tenant: TENANT_B })],
      });
      const counts = await h.run((tx) =>
        Effect.all([
          tx.countProviders(TENANT_A),
          tx.countProviders(TENANT_B),
          tx.countProviders("tenant-without-records"),
          tx.countServers(TENANT_A),
          tx.countServers(TENANT_B),
          tx.countServers("tenant-without-records"),
          tx.countVariables(TENANT_A),
          tx.countVariables(TENANT_B),
          tx.countVariables("tenant-without-records"),
          tx.countServerTokens(sA.id),
          tx.countServerTokens(sB.id),
          tx.countServerTokens(sC.id),
        ]),
      );
      expect(counts).toEqual([1, 1, 0, 1, 2, 0, 2, 1, 0, 2, 1, 0]);
    });

    it("findVariablesByName finds exactly the tenant's variables of those names", async () => {
      const [v1, v2, v3] = [variable(1), variable(2), variable(3)];
      const sameNameOtherTenant = variable(4, { tenant: TENANT_B, name: v1.name });
      await h.seed({ variables: [v1, v2, v3, sameNameOtherTenant] });
      const found = await h.read((tx) => tx.findVariablesByName(TENANT_A, [v1.name, v3.name, "NO_SUCH_VARIABLE"]));
      expect([...found].sort((a, b) => a.name.localeCompare(b.name))).toEqual([v1, v3]);
      expect(await h.read((tx) => tx.findVariablesByName(TENANT_A, []))).toEqual([]);
    });

    it("findProvidersAndTools finds the providers and the tools of those ids, of any tenant, each once", async () => {
      await h.seed(world);
      const byId = (rows: ReadonlyArray<{ readonly id: string }>) => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
      const found = await h.read((tx) =>
        tx.findProvidersAndTools([p3.id, MISSING_ID, p1.id, p3.id], [t3.id, t1.id, MISSING_ID, t1.id]),
      );
      expect(byId(found.providers)).toEqual(byId([p1, p3]));
      expect(byId(found.tools)).toEqual(byId([t1, t3]));
      // A provider id is no tool id and a tool id no provider id: each list holds only its own kind.
      const crossed = await h.read((tx) => tx.findProvidersAndTools([t1.id], [p1.id]));
      expect(crossed).toEqual({ providers: [], tools: [] });
      expect(await h.read((tx) => tx.findProvidersAndTools([], [t1.id]))).toEqual({ providers: [], tools: [t1] });
      expect(await h.read((tx) => tx.findProvidersAndTools([p1.id], []))).toEqual({ providers: [p1], tools: [] });
      expect(await h.read((tx) => tx.findProvidersAndTools([], []))).toEqual({ providers: [], tools: [] });
      expect(await h.read((tx) => tx.findProvidersAndTools([MISSING_ID], [MISSING_ID]))).toEqual({
        providers: [],
        tools: [],
      });
    });

    it("findProvidersAndTools with a tenant also finds that tenant's variables the found tools' headers name", async () => {
      const headers = (...values: Array<string>) => values.map((value, i) => ({ key: `X-H${i}`, value }));
      const named = tool(1, p1.id, { headers: headers("Bearer ${VAR_1}", "${VAR_2}-${bad name}-${VAR_3") });
      const other = tool(2, p1.id, { headers: headers("${VAR_4}") });
      const [v1, v2, v3, v4] = [variable(1), variable(2), variable(3), variable(4)];
      const elsewhere = variable(5, { tenant: TENANT_B, name: "VAR_1" });
      await h.seed({ ...world, tools: [named, other, t3], variables: [v1, v2, v3, v4, elsewhere] });
      const byName = (rows: ReadonlyArray<{ readonly name: string }> | undefined) =>
        [...(rows ?? [])].map((row) => row.name).sort();
      const found = await h.read((tx) => tx.findProvidersAndTools([p1.id], [named.id, t3.id], TENANT_A));
      expect(found.tools).toHaveLength(2);
      // VAR_3 is never closed and VAR_4 is named by a tool not asked for: neither is read.
      expect(byName(found.variables)).toEqual(["VAR_1", "VAR_2"]);
      expect(found.variables?.find((row) => row.name === "VAR_1")).toEqual(v1);
      expect(byName((await h.read((tx) => tx.findProvidersAndTools([], [t3.id], TENANT_A))).variables)).toEqual([]);
      expect(await h.read((tx) => tx.findProvidersAndTools([], [], TENANT_A))).toEqual({
        providers: [],
        tools: [],
        variables: [],
      });
      expect((await h.read((tx) => tx.findProvidersAndTools([], [named.id]))).variables).toBeUndefined();
    });

    it("findServerTokenByHash finds the token with that value hash", async () => {
      const tokens = [serverToken(1, sA.id), serverToken(2, sA.id), serverToken(3, sB.id, { tenant: TENANT_B })];
      await h.seed({ ...world, serverTokens: tokens });
      expect(await h.read((tx) => tx.findServerTokenByHash(tokenHash(2)))).toEqual(tokens[1]);
      expect(await h.read((tx) => tx.findServerTokenByHash(tokenHash(3)))).toEqual(tokens[2]);
      expect(await h.read((tx) => tx.findServerTokenByHash(tokenHash(4)))).toBeUndefined();
    });
  });
