import type { UpstreamAuthorizationRow, UpstreamConnectionRow } from "@mcpsm/domain/storage";
import { describe, expect, it } from "vitest";
import {
  at,
  id,
  provider,
  providerId,
  server,
  serverId,
  serverToken,
  serverTokenId,
  TENANT_A,
  TENANT_B,
} from "../fixtures.js";
import { expectBoundedPrune } from "../bounded-prune.js";
import type { Harness } from "../harness.js";
import { expectSecretRotation } from "../secret-rotation.js";

// Upstream OAuth connections (docs/api-rules.md §13): one per (provider, tenant, principal) — a second put
// replaces the first and keeps its id —, listed per provider and tenant in creation order, deleted with their
// provider and with the server token they were made with, their tokens among the secrets key rotation pages
// through; consents under way are taken once.

const connection = (n: number, override: Partial<UpstreamConnectionRow> = {}): UpstreamConnectionRow => ({
  id: id("conn", n),
  tenant: TENANT_A,
  providerId: providerId(1),
  principal: `oauth:user-${n}`,
  serverTokenId: null,
  scopes: ["read"],
  tokensCipher: `v1.k.tokens-${n}`,
  refreshable: true,
  expiresAt: at(3600 + n),
  createdAt: at(n),
  updatedAt: at(n),
  ...override,
});

const authorization = (n: number, override: Partial<UpstreamAuthorizationRow> = {}): UpstreamAuthorizationRow => ({
  id: id("auth", n),
  tenant: TENANT_A,
  providerId: providerId(1),
  principal: `oauth:user-${n}`,
  serverTokenId: null,
  scopes: ["read", "write"],
  codeVerifierCipher: `v1.k.verifier-${n}`,
  expiresAt: at(600 + n),
  createdAt: at(n),
  ...override,
});

export const upstreamConnectionCases = (h: Harness) =>
  describe("upstream connections", () => {
    const seed = () =>
      h.seed({
        providers: [provider(1), provider(2)],
        servers: [server(1)],
        serverTokens: [serverToken(1, serverId(1))],
      });

    it("round-trips, finds by key and id, and lists per provider and tenant in creation order", async () => {
      await seed();
      const rows = [
        connection(2),
        connection(1),
        connection(3, { tenant: TENANT_B }),
        connection(4, { providerId: providerId(2) }),
      ];
      for (const row of rows) await h.run((tx) => tx.putUpstreamConnection(row));
      expect(await h.read((tx) => tx.findUpstreamConnection(providerId(1), TENANT_A, "oauth:user-1"))).toEqual(rows[1]);
      expect(await h.read((tx) => tx.findUpstreamConnectionById(id("conn", 2)))).toEqual(rows[0]);
      expect(await h.read((tx) => tx.findUpstreamConnection(providerId(1), TENANT_B, "oauth:user-1"))).toBeUndefined();
      const listed = await h.read((tx) => tx.listUpstreamConnections(providerId(1), TENANT_A));
      expect(listed.map((row) => row.id)).toEqual([id("conn", 1), id("conn", 2)]);
    });

    it("a second put for the same caller replaces the first and keeps its id and creation time", async () => {
      await seed();
      await h.run((tx) => tx.putUpstreamConnection(connection(1)));
      const replaced = await h.run((tx) =>
        tx.putUpstreamConnection(
          connection(9, { principal: "oauth:user-1", scopes: ["read", "write"], tokensCipher: "v1.k.new" }),
        ),
      );
      expect(replaced).toMatchObject({
        id: id("conn", 1),
        createdAt: at(1),
        scopes: ["read", "write"],
        tokensCipher: "v1.k.new",
      });
      expect(await h.read((tx) => tx.listUpstreamConnections(providerId(1), TENANT_A))).toEqual([replaced]);
    });

    it("refuses a connection to a missing provider or server token", async () => {
      await seed();
      const noProvider = await h.failure((tx) =>
        tx.putUpstreamConnection(connection(1, { providerId: "missing0000" })),
      );
      expect(noProvider).toMatchObject({ _tag: "ReferenceViolation", kind: "upstreamConnection" });
      const noToken = await h.failure((tx) =>
        tx.putUpstreamConnection(connection(1, { serverTokenId: "missing0000" })),
      );
      expect(noToken).toMatchObject({ _tag: "ReferenceViolation", kind: "upstreamConnection" });
    });

    it("goes with its provider, its server token, and its server's tokens", async () => {
      await seed();
      await h.seed({ servers: [server(2)], serverTokens: [serverToken(2, serverId(2))] });
      await h.run((tx) =>
        tx.putUpstreamConnection(connection(1, { serverTokenId: serverTokenId(1), principal: "server-token:1" })),
      );
      await h.run((tx) =>
        tx.putUpstreamConnection(connection(2, { serverTokenId: serverTokenId(2), principal: "server-token:2" })),
      );
      await h.run((tx) => tx.putUpstreamConnection(connection(3, { providerId: providerId(2) })));
      await h.run((tx) => tx.insertUpstreamAuthorization(authorization(1, { serverTokenId: serverTokenId(1) })));
      await h.run((tx) => tx.deleteServerToken(serverTokenId(1)));
      expect(await h.read((tx) => tx.findUpstreamConnectionById(id("conn", 1)))).toBeUndefined();
      expect(await h.read((tx) => tx.takeUpstreamAuthorization(id("auth", 1)))).toBeUndefined();
      await h.run((tx) => tx.deleteServer(serverId(2)));
      expect(await h.read((tx) => tx.findUpstreamConnectionById(id("conn", 2)))).toBeUndefined();
      await h.run((tx) => tx.deleteProvider(providerId(2)));
      expect(await h.read((tx) => tx.findUpstreamConnectionById(id("conn", 3)))).toBeUndefined();
    });

    it("deletes one connection", async () => {
      await seed();
      await h.run((tx) => tx.putUpstreamConnection(connection(1)));
      await h.run((tx) => tx.deleteUpstreamConnection(id("conn", 1)));
      expect(await h.read((tx) => tx.listUpstreamConnections(providerId(1), TENANT_A))).toEqual([]);
    });

    it("a consent under way is taken once", async () => {
      await seed();
      const row = authorization(1);
      await h.run((tx) => tx.insertUpstreamAuthorization(row));
      expect(await h.run((tx) => tx.takeUpstreamAuthorization(row.id))).toEqual(row);
      expect(await h.run((tx) => tx.takeUpstreamAuthorization(row.id))).toBeUndefined();
    });

    it("expired consents under way are pruned in bounded batches, oldest first; live ones stay", async () => {
      await seed();
      await expectBoundedPrune({
        insert: (n, expiresAt) => h.run((tx) => tx.insertUpstreamAuthorization(authorization(n, { expiresAt }))),
        prune: (before, limit) => h.run((tx) => tx.pruneUpstreamAuthorizations(before, limit)),
        // Taking is the only lookup of a consent under way.
        find: (n) => h.run((tx) => tx.takeUpstreamAuthorization(id("auth", n))),
        id: (n) => id("auth", n),
      });
    });

    it("key rotation pages through connection tokens and swaps them by compare-and-set", async () => {
      await seed();
      await h.run((tx) => tx.putUpstreamConnection(connection(1)));
      await expectSecretRotation(
        h,
        { kind: "upstreamConnection", id: id("conn", 1), ciphertext: "v1.k.tokens-1" },
        () => h.read((tx) => tx.findUpstreamConnectionById(id("conn", 1))),
        "tokensCipher",
      );
    });
  });
