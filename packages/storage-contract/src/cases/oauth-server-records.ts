import type { OAuthServerRecordRow } from "@mcpsm/domain/storage";
import { Data, Effect } from "effect";
import { describe, expect, it } from "vitest";
import { at } from "../fixtures.js";
import type { Harness } from "../harness.js";

// The records of the service's OAuth authorization server: upsert by id (keeping the server token a grant
// was made with and the first use), lookups by id and by (model, uid), one-time use, deletes by grant and
// by server token (the grant and every record of it), pruning of expired records in bounded batches, and
// rollback with the caller's transaction.

class Boom extends Data.TaggedError("Boom")<Record<never, never>> {}

const record = (model: string, n: number, override: Partial<OAuthServerRecordRow> = {}): OAuthServerRecordRow => ({
  id: `${model}:rec${n}`,
  model,
  payload: { n, nested: { list: [1, "two", null] }, text: "ünïcode" },
  grantId: null,
  uid: null,
  serverTokenId: null,
  secretCipher: null,
  expiresAt: at(100 + n),
  consumedAt: null,
  ...override,
});

export const oauthServerRecordCases = (h: Harness) =>
  describe("OAuth server records", () => {
    const upsert = (...rows: ReadonlyArray<OAuthServerRecordRow>) =>
      h.run((tx) => Effect.forEach(rows, (row) => tx.upsertOAuthServerRecord(row), { discard: true }));
    const find = (id: string) => h.read((tx) => tx.findOAuthServerRecord(id));

    it("round-trips every field, and a missing id finds nothing", async () => {
      const row = record("Grant", 1, {
        grantId: "g1",
        uid: "u1",
        serverTokenId: "tok1",
        secretCipher: "v1.k.sealed",
        consumedAt: at(3),
      });
      const bare = record("Client", 2, { expiresAt: null });
      await upsert(row, bare);
      expect(await find(row.id)).toEqual(row);
      expect(await find(bare.id)).toEqual(bare);
      expect(await find("Grant:missing")).toBeUndefined();
    });

    it("replaces a record with the same id, keeping its server token and first use when the new row has none", async () => {
      await upsert(record("Grant", 1, { grantId: "g1", serverTokenId: "tok1", consumedAt: at(2) }));
      const replacement = record("Grant", 1, { grantId: "g1", payload: { changed: true }, expiresAt: at(500) });
      await upsert(replacement);
      expect(await find(replacement.id)).toEqual({ ...replacement, serverTokenId: "tok1", consumedAt: at(2) });
      await upsert({ ...replacement, serverTokenId: "tok2" });
      expect((await find(replacement.id))?.serverTokenId).toBe("tok2");
    });

    it("finds a record by model and uid", async () => {
      await upsert(record("Session", 1, { uid: "uid-1" }), record("Interaction", 2, { uid: "uid-1" }));
      expect((await h.read((tx) => tx.findOAuthServerRecordByUid("Session", "uid-1")))?.id).toBe("Session:rec1");
      expect((await h.read((tx) => tx.findOAuthServerRecordByUid("Interaction", "uid-1")))?.id).toBe(
        "Interaction:rec2",
      );
      expect(await h.read((tx) => tx.findOAuthServerRecordByUid("Session", "uid-2"))).toBeUndefined();
    });

    it("marks a record used once: the first time stays", async () => {
      await upsert(record("AuthorizationCode", 1));
      await h.run((tx) => tx.consumeOAuthServerRecord("AuthorizationCode:rec1", at(7)));
      await h.run((tx) => tx.consumeOAuthServerRecord("AuthorizationCode:rec1", at(9)));
      await h.run((tx) => tx.consumeOAuthServerRecord("AuthorizationCode:missing", at(9)));
      expect((await find("AuthorizationCode:rec1"))?.consumedAt).toEqual(at(7));
    });

    it("deletes one record, and the records of one model of a grant", async () => {
      await upsert(
        record("RefreshToken", 1, { grantId: "g1" }),
        record("RefreshToken", 2, { grantId: "g1" }),
        record("AuthorizationCode", 3, { grantId: "g1" }),
        record("RefreshToken", 4, { grantId: "g2" }),
      );
      await h.run((tx) => tx.deleteOAuthServerRecord("RefreshToken:rec4"));
      expect(await find("RefreshToken:rec4")).toBeUndefined();
      expect(await h.run((tx) => tx.deleteOAuthServerRecordsOfGrant("RefreshToken", "g1"))).toBe(2);
      expect(await find("RefreshToken:rec1")).toBeUndefined();
      expect(await find("AuthorizationCode:rec3")).toBeDefined();
    });

    it("deletes the grants made with a server token and every record of them, nothing else", async () => {
      await upsert(
        record("Grant", 1, { grantId: "g1", serverTokenId: "tok1" }),
        record("RefreshToken", 2, { grantId: "g1" }),
        record("Session", 3, { grantId: "g1" }),
        record("Grant", 4, { grantId: "g2", serverTokenId: "tok2" }),
        record("RefreshToken", 5, { grantId: "g2" }),
        record("Grant", 6, { grantId: "g3" }),
        record("Client", 7),
      );
      expect(await h.run((tx) => tx.deleteOAuthServerGrantsOfServerToken("tok1"))).toBe(3);
      for (const gone of ["Grant:rec1", "RefreshToken:rec2", "Session:rec3"]) expect(await find(gone)).toBeUndefined();
      for (const kept of ["Grant:rec4", "RefreshToken:rec5", "Grant:rec6", "Client:rec7"])
        expect(await find(kept)).toBeDefined();
      expect(await h.run((tx) => tx.deleteOAuthServerGrantsOfServerToken("tok-none"))).toBe(0);
    });

    it("prunes expired records in bounded batches, never the unexpiring ones", async () => {
      await upsert(
        record("Session", 1, { expiresAt: at(1) }),
        record("Session", 2, { expiresAt: at(2) }),
        record("Session", 3, { expiresAt: at(3) }),
        record("Session", 4, { expiresAt: at(50) }),
        record("Client", 5, { expiresAt: null }),
      );
      expect(await h.run((tx) => tx.pruneOAuthServerRecords(at(10), 2))).toBe(2);
      expect(await h.run((tx) => tx.pruneOAuthServerRecords(at(10), 2))).toBe(1);
      expect(await h.run((tx) => tx.pruneOAuthServerRecords(at(10), 2))).toBe(0);
      expect(await find("Session:rec4")).toBeDefined();
      expect(await find("Client:rec5")).toBeDefined();
    });

    it("lists record secrets for key rotation and replaces them by compare-and-set", async () => {
      await upsert(record("Session", 1, { secretCipher: "v1.k.one" }), record("Client", 2));
      const listed = await h.read((tx) => tx.listSecrets(undefined, 100));
      expect(listed).toEqual([{ kind: "oauthServerRecord", id: "Session:rec1", ciphertext: "v1.k.one" }]);
      const [secret] = listed;
      expect(await h.run((tx) => tx.replaceSecret(secret!, "v2.k.one"))).toBe(true);
      expect(await h.run((tx) => tx.replaceSecret(secret!, "v3.k.one"))).toBe(false);
      expect(await find("Session:rec1")).toEqual(record("Session", 1, { secretCipher: "v2.k.one" }));
    });

    it("goes with the rollback of the caller's transaction", async () => {
      await h.failure((tx) =>
        Effect.zipRight(tx.upsertOAuthServerRecord(record("Client", 1)), Effect.fail(new Boom())),
      );
      expect(await find("Client:rec1")).toBeUndefined();
    });

    it("hands out copies: changing a read row changes nothing stored", async () => {
      const row = record("Client", 1);
      await upsert(row);
      const read = await find(row.id);
      (read?.payload as { n: number }).n = 99;
      expect(await find(row.id)).toEqual(row);
    });
  });
